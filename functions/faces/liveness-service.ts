/**
 * Where Amazon Rekognition Face Liveness can run: its streaming endpoint (the browser's half of a
 * check) exists in these regions only. A capture's Liveness Check REKOGNITION is published only
 * by a deployment whose region is one of them (the stack sets FACE_LIVENESS there); the local
 * runtime has no such service, so there it is refused at publish with the reason, never
 * accepted and then failed when an end user reaches the step.
 */
import type { ErrorDetail } from '../errors.js';
import { getStoreConfig } from '../config.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';

/** The Face Liveness capture's script: built beside its route's bundle (lib/liveness-asset.ts), served by getFaceLivenessAsset. */
export const FACE_LIVENESS_ASSET = 'face-liveness.js';

export const FACE_LIVENESS_REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-south-1', 'ap-northeast-1', 'sa-east-1', 'ap-southeast-5', 'ap-southeast-7'] as const;

/** Whether this deployment has Rekognition Face Liveness (FACE_LIVENESS, set by the stack in those regions). */
export const faceLivenessAvailable = () => getStoreConfig().FACE_LIVENESS === 'rekognition';

/** The captures that ask for Rekognition Face Liveness where this deployment has none, each at its input. */
export function unavailableFaceLiveness(activities: ProcessDefinition['activities'], available = faceLivenessAvailable()): ErrorDetail[] {
  if (available) return [];
  return Object.entries(activities).flatMap(([id, activity]) =>
    activity.type === 'CAPTURE_FACE_IMAGE' && activity.inputs['Liveness Check'] === 'REKOGNITION'
      ? [
          {
            location: `activities.${id}.inputs.Liveness Check`,
            message:
              `activity "${id}": Liveness Check REKOGNITION needs Amazon Rekognition Face Liveness, which this deployment does not have: ` +
              `it runs only on AWS, in ${FACE_LIVENESS_REGIONS.join(', ')} (the local runtime has no such service). Choose ACTIVE (the service's own challenge) or deploy to one of those regions.`,
          },
        ]
      : [],
  );
}

/** Where Amazon's capture component fetches its face detector model and TensorFlow.js WebAssembly (its defaults). */
export const FACE_LIVENESS_CDN = 'https://cdn.liveness.rekognition.amazonaws.com';

/**
 * The journey page's CSP while it shows a Face Liveness capture: `base` (the pages' own) with the
 * component's needs added: its WebAssembly compiled (`'wasm-unsafe-eval'`: no eval of script),
 * its model and WebAssembly fetched from Amazon's liveness CDN, its video streamed to the
 * region's Rekognition streaming endpoint. Nothing else is opened.
 */
export function faceLivenessCsp(base: string, region: string): string {
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) return base;
  return base
    .replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
    .replace("connect-src 'self'", `connect-src 'self' ${FACE_LIVENESS_CDN} wss://streaming-rekognition.${region}.amazonaws.com`);
}
