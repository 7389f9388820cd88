import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'SCREEN_REPLAY_DETECTION',
  displayName: 'Screen Replay Detection',
  bean: 'screenReplayDocAuthDetectionV1',
  palette: 'SCR02',
  what: 'a document shown on a screen and photographed again',
  check: 'screenReplay',
  imageProfile: 'Uncropped',
  output: '_screenReplayDetected',
  failed: { name: 'Failed Screen Replay', aslError: 'ScreenReplayDetected', code: 'failedScreenReplay' },
  exceeded: { name: 'Exceeded Failed Screen Replay', aslError: 'ScreenReplayAttemptsExceeded', code: 'exceededFailedScreenReplay' },
  assessed: true,
  idlive: true,
});
