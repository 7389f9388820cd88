import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'COLOR_COPY_DETECTION',
  displayName: 'Color Copy Detection',
  bean: 'colorCopyDetectionV1',
  palette: 'CLD02',
  what: 'a colour copy of the document',
  check: 'colorCopy',
  imageProfile: 'Cropped',
  output: '_colorCopyDetected',
  failed: { name: 'Failed Document Color Copy', aslError: 'ColorCopyDetected', code: 'failedDocumentColorCopy' },
  exceeded: { name: 'Exceeded Failed Document Color Copy Detection', aslError: 'ColorCopyAttemptsExceeded', code: 'exceededFailedDocumentColorCopyDetection' },
  assessed: false,
  idlive: false,
});
