import { stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'WAIT_RESUME_INSTANCE',
  displayName: 'Waiting for Resume',
  kind: 'user',
  description:
    'Waits for the resume of the pause an earlier Pause Instance step made: the resume URL opened, or the resume API called, once. ' +
    'The end user\'s page, if still open, says the journey is paused and may be closed. Usually with a timer boundary event, whose ' +
    'route is taken when nobody resumes in time; then the resume URL no longer resumes anything.',
  inputs: [stepTimeout],
  rules: [],
  outputs: [],
  errorEvents: [],
  family: { palette: 'WRSPI01', beans: ['waitResumeInstance'], endBean: 'waitResumeInstanceEnd' },
} as const satisfies ActivitySpec;
