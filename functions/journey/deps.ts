/**
 * The journey's storage, put together here and only here: what the end user's pages and step
 * submissions read and write of the process manager's instances, their images, and the identity
 * store's passcode logins. One binding per need, so each handler's bundle carries only what it uses.
 */
import type { PasscodeStore } from '../identity-store/model.js';
import type { InstanceImageStore, InstancePauseStore, ProcessInstanceStore, SessionStore } from '../process-manager/model.js';
import { passcodeStore } from '../store/identity-store.js';
import { imageStore } from '../adapters/images.js';
import { faceEngine } from '../adapters/face-engine.js';
import type { FaceEngine, FaceLivenessService, FaceLivenessSessionStore, LivenessChallengeStore } from '../faces/model.js';
import { livenessChallengeStore } from '../store/liveness-challenges.js';
import { faceLivenessSessionStore } from '../store/face-liveness-sessions.js';
import { faceLivenessService } from '../adapters/face-liveness.js';
import { objectKeys } from '../store/keys.js';
import { processInstanceStore } from '../store/process-instances.js';
import { instancePauseStore } from '../store/instance-pauses.js';
import { sessionStore } from '../store/sessions.js';
import { switchDeviceReader, switchDeviceStore } from '../store/switch-devices.js';
import type { SwitchDeviceStore } from './model.js';

export const instances: Pick<
  ProcessInstanceStore,
  'get' | 'getLive' | 'setWaitingStep' | 'claimStep' | 'getStepClaim' | 'finishStep' | 'releaseClaim' | 'countRefusal' | 'noteRefusal'
> = processInstanceStore;
export const images: Pick<InstanceImageStore, 'put'> = imageStore;
export const passcodeLogins: Pick<PasscodeStore, 'getLogin'> = passcodeStore;
/** Where a face capture's image goes in S3 (always under its tenant and instance). */
export const faceCaptureObjectKey = objectKeys.faceCapture;
/** Where a document capture's image goes in S3 (under its tenant and instance, beside the faces). */
export const documentCaptureObjectKey = objectKeys.documentCapture;
export const additionalDocumentObjectKey = objectKeys.additionalDocument;
/** The face engine: Rekognition on AWS, the embedded model locally. */
export const faces: Pick<FaceEngine, 'name' | 'detect' | 'liveness' | 'measureChallenge'> = faceEngine;
/** The active liveness challenges of capture steps, and the frames taken. */
export const livenessChallenges: LivenessChallengeStore = livenessChallengeStore;
/** The Rekognition Face Liveness sessions of capture steps (Liveness Check REKOGNITION). */
export const faceLivenessSessions: FaceLivenessSessionStore = faceLivenessSessionStore;
/** Rekognition Face Liveness where the deployment has it (AWS, in its regions); none locally. */
export const faceLiveness: () => FaceLivenessService | undefined = faceLivenessService;
/** The journey's session versions (the execution's state holds only a reference to one). */
export const sessions: SessionStore = sessionStore;
/** The resume of a pause: marked once on the instance, with its status back to ACTIVE. */
export const pauses: Pick<InstancePauseStore, 'resume' | 'redrive'> = instancePauseStore;
/** The devices and links of Switch Device steps, and the instance's holder. */
export const switchDevices: SwitchDeviceStore = switchDeviceStore;
/** A device's capability, as every journey page checks it. */
export const deviceCapabilities: Pick<SwitchDeviceStore, 'getDevice'> = switchDeviceReader;
