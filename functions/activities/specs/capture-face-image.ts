import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CAPTURE_FACE_IMAGE',
  displayName: 'Capture Face Image',
  kind: 'user',
  description:
    "Captures the end user's live face image and judges it by its face: exactly one face, large, frontal, sharp and lit enough, or the page says what to fix and the step waits; then a passive liveness score, which the check records (PASS, REVIEW or FAIL) for the decider.",
  inputs: [
    key('Face Key', 'face1', 'Where the capture and its check are kept.'),
    {
      name: 'Image Format',
      type: 'S',
      required: false,
      default: 'JPEG',
      enum: ['JPEG', 'PNG'],
      description: "The format the page's camera takes the photo in (a chosen file may be either).",
      family: { name: 'faceImageFormat', label: 'Face Image Format' },
    },
    {
      name: 'Camera Width',
      type: 'I',
      required: false,
      default: 1280,
      min: 160,
      max: 7680,
      description: 'The width, in pixels, the page asks the camera for (the camera gives the nearest it has).',
      family: { name: 'cameraWidth' },
    },
    {
      name: 'Camera Height',
      type: 'I',
      required: false,
      default: 720,
      min: 120,
      max: 4320,
      description: 'The height, in pixels, the page asks the camera for.',
      family: { name: 'cameraHeight' },
    },
    {
      name: 'Timeout (in seconds)',
      type: 'I',
      required: false,
      default: 60,
      min: 5,
      max: 3600,
      description: "How long the page's camera stays on without a photo taken: then it stops, and the end user can start it again or choose a file. Not the step's timeout.",
      family: { name: 'timeoutInSeconds' },
    },
    {
      name: 'Require Consent',
      type: 'B',
      required: false,
      default: false,
      description:
        "The page always says, before the capture, who receives the face image (the definition's presentation name), why, and for how long (the retention in days), with a link to the privacy notice. True: the end user must also tick a box agreeing to it before the camera or a file is offered, and a photo sent without it is refused (CONSENT_REQUIRED). The consent (its time and the notice's version) is kept with the step's user data.",
    },
    {
      name: 'Require Live Camera',
      type: 'B',
      required: false,
      default: false,
      description:
        "True: only a photo taken with the camera in the page is taken. No file can be chosen, and a post without the page's camera mark is refused (FACE_UPLOAD_NOT_ALLOWED). The page then needs script and a camera, and says so when it has neither.",
    },
    {
      name: 'Liveness Check',
      type: 'S',
      required: false,
      default: 'PASSIVE',
      enum: ['PASSIVE', 'ACTIVE', 'REKOGNITION'],
      description:
        "PASSIVE: one photo, judged live by the embedded model's single-image score (a weak signal: it does not separate a good photo of a photo from a face). ACTIVE: the end user also answers a challenge drawn on the server when they start it: two to four prompts (turn left, turn right, look up, blink, open mouth) in a random order and three to five screen colours; the page sends the photo with a burst of frames bound to the challenge's nonce, and the server checks one face throughout, the same person as the photo, each prompt in its window, the face's colour following the screen's, and frames never sent before. Every measurement and its threshold go into the check (docs/faces.md, \"Active liveness\") Where a Face Liveness step judges this step's Face Key, the default is ACTIVE and PASSIVE is refused at publish (Face Liveness judges a challenge, not the single-image score). REKOGNITION (AWS only, in the regions with Amazon Rekognition Face Liveness; refused at publish elsewhere and locally): the page runs Amazon's Face Liveness capture, which streams a few seconds of video straight to Rekognition with credentials good for that call only; the service reads the session's confidence, keeps its reference image as the capture and its audit images beside it, and the check passes at or above Rekognition Threshold (docs/faces.md, \"Rekognition Face Liveness\").",
    },
    {
      name: 'Rekognition Challenge',
      type: 'S',
      required: false,
      default: 'FaceMovementAndLightChallenge',
      enum: ['FaceMovementAndLightChallenge', 'FaceMovementChallenge'],
      description:
        'REKOGNITION: the challenge Rekognition runs: the face moved into an oval under a sequence of flashing screen colours, or the movement alone (no flashing: for end users who must avoid flashing light; weaker against replays).',
    },
    {
      name: 'Rekognition Threshold',
      type: 'N',
      required: false,
      default: 0.6,
      min: 0,
      max: 1,
      description:
        "REKOGNITION: the session's confidence (0 to 1) at or above which the capture's check passes. AWS's guidance: 0.5 to 0.6 where photos, screens and masks held to the camera are the threat; higher (0.8 to 0.9) where injected video is, at the cost of more genuine users failing.",
    },
    {
      name: 'Rekognition Audit Images',
      type: 'I',
      required: false,
      default: 0,
      min: 0,
      max: 4,
      description: 'REKOGNITION: how many audit images (frames of the video besides the reference image) Rekognition returns; each is kept with the instance as the reference image is.',
    },
    {
      name: 'Liveness Near Miss',
      type: 'S',
      required: false,
      default: 'FAIL',
      enum: ['FAIL', 'REVIEW'],
      description:
        'ACTIVE: what a challenge is whose hard rules hold (fresh frames, one face, the same person) but a prompt or the colours fell just short of their thresholds: FAIL, or REVIEW for a person to look at.',
    },
    {
      name: 'Offer Another Way',
      type: 'B',
      required: false,
      default: false,
      description:
        'ACTIVE or REKOGNITION: the page offers "I cannot do this challenge" to an end user who cannot (no camera in the page, a disability, flashing colours they must avoid); choosing it raises Liveness Challenge Declined, whose route leads to another way of verifying them.',
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Face captures', variable: '_faces.{Face Key}.captures' },
    { name: 'Face capture check', variable: '_checks.{Face Key}', description: '{result: "PASS" | "FAIL" | "REVIEW", ...}' },
  ],
  errorEvents: [
    {
      name: 'Liveness Challenge Declined',
      aslError: 'LivenessChallengeDeclined',
      code: 'livenessChallengeDeclined',
      description: 'The end user chose not to do the liveness challenge, active or Rekognition\'s (Offer Another Way).',
    },
  ],
  family: { beans: ['captureFaceImageV1'] },
} as const satisfies ActivitySpec;
