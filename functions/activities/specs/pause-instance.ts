import type { ActivitySpec } from '../spec.js';

export const spec = {
  type: 'PAUSE_INSTANCE',
  displayName: 'Pause Instance',
  kind: 'service',
  description:
    'Pauses the journey: the instance becomes PAUSED, and an unguessable resume URL (on the service\'s own host, good once, for as long ' +
    'as the instance lives) is set as the process variables resumeUrl and _resumeUrl, for the relying party to hold (the family maps ' +
    '`_resumeUrl` = `${resumeUrl}` as an output parameter). A later Waiting for Resume step waits until that URL is opened or the ' +
    'resume API is called.',
  inputs: [],
  rules: [],
  outputs: [
    { name: 'Resume URL', variable: 'vars.resumeUrl', description: 'The link that resumes the journey, once; also kept in the step\'s user data.' },
    { name: 'Resume URL (the family\'s variable)', variable: 'vars._resumeUrl', description: 'The same link, so that a definition without the output parameter has it too.' },
  ],
  errorEvents: [],
  // The instance is gone or has ended, or was made before instances kept their origin (no link can be made).
  failures: ['InstanceNotPausable'],
  family: { displayName: 'Pause Instance Activity', palette: 'PSUU01', beans: ['pauseInstance'] },
} as const satisfies ActivitySpec;
