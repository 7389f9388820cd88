import { Validations, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { nagArn } from './service-function.js';
import type { FaceAction } from '../../functions/http/route.js';

/** Rekognition actions on images only, which take no resource (IAM needs `*`). */
const IMAGE_ONLY: readonly FaceAction[] = ['DetectFaces', 'CompareFaces'];

/** The environment a face engine function reads (functions/config.ts FACE_COLLECTION_PREFIX). */
export function facesEnvironment(namePrefix: string, actions: readonly FaceAction[]): Record<string, string> {
  return actions.some((a) => !IMAGE_ONLY.includes(a)) ? { FACE_COLLECTION_PREFIX: namePrefix } : {};
}

/** The ARN pattern of this deployment's watchlist collections (`{prefix}.{tenantId}.{watchlistId}`). */
export function collectionArnPattern(stack: Stack, namePrefix: string): string {
  return stack.formatArn({ service: 'rekognition', resource: 'collection', resourceName: `${namePrefix}.*` });
}

/**
 * Rekognition grants: the image-only actions on `*` (they have no resource), the collection
 * actions only on this deployment's collections.
 */
export function faceStatements(actions: readonly FaceAction[], stack: Stack, namePrefix: string): iam.PolicyStatement[] {
  const images = actions.filter((a) => IMAGE_ONLY.includes(a));
  const collections = actions.filter((a) => !IMAGE_ONLY.includes(a));
  const out: iam.PolicyStatement[] = [];
  if (images.length > 0) {
    out.push(new iam.PolicyStatement({ sid: 'JudgeFaceImages', actions: images.map((a) => `rekognition:${a}`), resources: ['*'] }));
  }
  if (collections.length > 0) {
    out.push(
      new iam.PolicyStatement({
        sid: 'UseWatchlistCollections',
        actions: collections.map((a) => `rekognition:${a}`),
        resources: [collectionArnPattern(stack, namePrefix)],
      }),
    );
  }
  return out;
}

/** cdk-nag acknowledgements for the wildcards faceStatements grants. */
export function acknowledgeFaceStatements(role: iam.IRole, actions: readonly FaceAction[], stack: Stack, namePrefix: string): void {
  if (actions.some((a) => IMAGE_ONLY.includes(a))) {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Rekognition DetectFaces and CompareFaces act on the image in the request and support no resource-level permission.',
    });
  }
  if (actions.some((a) => !IMAGE_ONLY.includes(a))) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(collectionArnPattern(stack, namePrefix), stack)}]`,
      reason: 'Watchlist collections are made at run time, one per tenant watchlist, named under this deployment\'s prefix.',
    });
  }
}
