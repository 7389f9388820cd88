import { s, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'ARCHIVE_PROCESS_INSTANCE',
  displayName: 'Archive Process Instance',
  kind: 'service',
  description: 'Archives the instance under an archive policy, extending its retention.',
  inputs: [
    s('Archive Key', true, 'archiveKey1', 'Identifies the archive attempt.'),
    s('Archive Policy Name', true),
    { name: 'Archive Policy Version', type: 'I', required: true, min: 1 },
    { name: 'Cloud Secrets', type: 'L', required: false },
    { name: 'Process Variables', type: 'L', required: false },
  ],
  rules: [],
  outputs: [],
  errorEvents: [{ name: 'Configuration Exception', aslError: 'ArchiveConfigurationException', code: 'configurationException' }],
  family: { beans: ['archiveProcessInstanceV1'] },
} as const satisfies ActivitySpec;


/** Archive policies and the archive store do not exist yet. */
export const notRunnable = 'archive policies are not built yet';
