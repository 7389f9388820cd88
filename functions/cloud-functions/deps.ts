/**
 * The cloud functions area's storage and sealing (one wiring place; handlers and the activity
 * take them from here).
 */
import { cloudFunctionStore } from '../store/cloud-functions.js';
import { cloudSecretStore } from '../store/cloud-secrets.js';
import { cloudFunctionLogStore } from '../store/cloud-function-logs.js';
import { cloudSecretSealer } from '../adapters/sealer.js';
import { functionRunner } from '../adapters/function-runner.js';
import type { CloudFunctionLogStore, CloudFunctionStore, CloudSecretSealer, CloudSecretStore, FunctionRunner } from './model.js';

export const cloudFunctions: CloudFunctionStore = cloudFunctionStore;
export const cloudSecrets: CloudSecretStore = cloudSecretStore;
export const cloudFunctionLogs: CloudFunctionLogStore = cloudFunctionLogStore;
/** Seals with SECRETS_KEY, chosen at first use (KMS on AWS, a key file locally). */
export const secretSealer: CloudSecretSealer = cloudSecretSealer;
/** The sandbox that runs functions: the runner Lambda on AWS, a child process locally. */
export const runner: FunctionRunner = functionRunner;
