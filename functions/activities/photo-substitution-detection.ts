import { spec } from './specs/photo-substitution-detection.js';
import { NOT_ASSESSED_AWS, detectionRun } from './document-detection.js';

export const aws = NOT_ASSESSED_AWS;

export const run = detectionRun(spec, 'photoSubstitution');
