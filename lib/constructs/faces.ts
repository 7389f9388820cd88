import path from 'node:path';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { nagArn, shellQuote, type ServiceFunction } from './service-function.js';
import type { FaceAction, FaceLivenessAction } from '../../functions/http/route.js';

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

/** The path of a route function's Face Liveness browser role: its grant names the role by it (no reference, no cycle). */
export const livenessBrowserRolePath = (functionName: string) => `/${functionName}/liveness-browser/`;

/**
 * Rekognition Face Liveness for a route function (its `aws.faceLiveness`), where the region has
 * it. The session calls on `*` (they take no resource). `BrowserCredentials`: a role of its own
 * that only this function's role may assume, allowed nothing but the streaming call, which the
 * function hands the end user's browser a 15-minute session of (functions/adapters/face-liveness.ts
 * narrows it again with a session policy); the function learns it in LIVENESS_BROWSER_ROLE_ARN.
 */
export function grantFaceLiveness(fn: ServiceFunction, actions: readonly FaceLivenessAction[], operationId: string): void {
  const stack = Stack.of(fn);
  const calls = actions.filter((a): a is Exclude<FaceLivenessAction, 'BrowserCredentials'> => a !== 'BrowserCredentials');
  if (calls.length > 0) {
    fn.policy.addStatements(new iam.PolicyStatement({ sid: 'FaceLivenessSessions', actions: calls.map((a) => `rekognition:${a}`), resources: ['*'] }));
  }
  if (actions.includes('BrowserCredentials')) {
    const path = livenessBrowserRolePath(fn.physicalName);
    const browser = new iam.Role(fn, 'LivenessBrowserRole', {
      assumedBy: new iam.ArnPrincipal(fn.role.roleArn),
      path,
      description: `The end user's browser streaming one Face Liveness check, a session of it handed out by ${operationId}`,
      maxSessionDuration: Duration.hours(1),
      inlinePolicies: {
        StreamFaceLiveness: new iam.PolicyDocument({
          statements: [new iam.PolicyStatement({ sid: 'StartFaceLivenessStream', actions: ['rekognition:StartFaceLivenessSession'], resources: ['*'] })],
        }),
      },
    });
    // By its path, not its ARN: the function's role is in the browser role's trust, so a reference back would be a cycle.
    const browserRoles = stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: `${path.slice(1)}*` });
    fn.policy.addStatements(new iam.PolicyStatement({ sid: 'HandOutFaceLivenessCredentials', actions: ['sts:AssumeRole'], resources: [browserRoles] }));
    fn.function.addEnvironment('LIVENESS_BROWSER_ROLE_ARN', browser.roleArn);
    Validations.of(browser).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'rekognition:StartFaceLivenessSession streams to a session named in the request and supports no resource-level permission.',
    });
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(browserRoles, stack)}]`,
      reason: "The function's own Face Liveness browser role, named by its path (a reference to it would be a cycle through its trust policy).",
    });
  }
  if (calls.length > 0) {
    Validations.of(fn.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Rekognition CreateFaceLivenessSession and GetFaceLivenessSessionResults support no resource-level permission.',
    });
  }
}

/** The command that builds the Face Liveness capture's script into a bundle's folder (lib/liveness-asset.ts). */
export function faceLivenessAssetCommand(repoRoot: string, output: string): string {
  return `cd ${shellQuote(repoRoot)} && ${shellQuote(path.join(repoRoot, 'node_modules/.bin/tsx'))} bin/build-face-liveness.ts ${shellQuote(output)}`;
}
