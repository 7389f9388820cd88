import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { serviceKey } from './key-policies.js';

/** The encryption context every sealed cloud secret carries (functions/adapters/sealer.ts `cloudSecretContext`). */
export const CLOUD_SECRET_PURPOSE = 'cloud-secret';

/**
 * The key cloud secrets are sealed with at rest: each value is KMS-encrypted (Encrypt, at most
 * 4 KiB) bound to its tenant, name and version, and stored in the table only as ciphertext.
 * Rotated yearly; kept when the stack goes (the secrets it opens may be in a restored table). Its
 * policy names the roles that seal or unseal, each for its purpose only (lib/constructs/key-policies.ts).
 */
export function cloudSecretsKey(scope: Construct): kms.Key {
  return serviceKey(scope, 'CloudSecretsKey', {
    description: 'Seals tenants\' cloud secrets (their values in the table are ciphertext under this key).',
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** The environment a function sealing or unsealing cloud secrets reads (functions/config.ts SECRETS_KEY). */
export function cloudSecretsEnvironment(key: kms.IKey): Record<string, string> {
  return { SECRETS_KEY: `kms:${key.keyArn}` };
}

/** The encryption context every sealed webhook signing secret carries (functions/adapters/sealer.ts `webhookSecretContext`). */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/** Encrypt (routes that make a secret) or Decrypt (the delivery worker), only for webhook secrets' context, with the same key. */
export function webhookSecretStatement(action: 'seal' | 'unseal', key: kms.IKey): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: action === 'seal' ? 'SealWebhookSecrets' : 'UnsealWebhookSecrets',
    actions: [action === 'seal' ? 'kms:Encrypt' : 'kms:Decrypt'],
    resources: [key.keyArn],
    conditions: { StringEquals: { 'kms:EncryptionContext:purpose': WEBHOOK_SECRET_PURPOSE } },
  });
}

/** Encrypt (routes that store a value) or Decrypt (the step that gives them to a function), only for cloud secrets' context. */
export function cloudSecretStatement(action: 'seal' | 'unseal', key: kms.IKey): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: action === 'seal' ? 'SealCloudSecrets' : 'UnsealCloudSecrets',
    actions: [action === 'seal' ? 'kms:Encrypt' : 'kms:Decrypt'],
    resources: [key.keyArn],
    conditions: { StringEquals: { 'kms:EncryptionContext:purpose': CLOUD_SECRET_PURPOSE } },
  });
}
