import { spec } from './specs/screen-replay-detection.js';
import { DETECTION_AWS, detectionRun } from './document-detection.js';

export const aws = DETECTION_AWS;

export const run = detectionRun(spec, 'screenReplay');
