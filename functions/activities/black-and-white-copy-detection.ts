import { spec } from './specs/black-and-white-copy-detection.js';
import { DETECTION_AWS, detectionRun } from './document-detection.js';

export const aws = DETECTION_AWS;

export const run = detectionRun(spec, 'blackAndWhiteCopy');
