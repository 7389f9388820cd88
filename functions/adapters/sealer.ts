import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KMSClient } from '@aws-sdk/client-kms';
import { getStoreConfig } from '../config.js';
import type { ExportRef, SecretSealer } from '../exports/model.js';

/** Seals secrets bound to a context `C` (KMS encryption context on AWS, AES-GCM additional data locally). */
export interface Sealer<C> {
  seal(plain: string, context: C): Promise<string>;
  unseal(sealed: string, context: C): Promise<string>;
}

/** What KMS takes as plaintext at most (Encrypt with a symmetric key): the local sealer refuses more too. */
export const KMS_MAX_PLAINTEXT_BYTES = 4096;
import { traced } from '../observability/tracer.js';

/**
 * KMS on AWS: Encrypt/Decrypt with the key, bound to an encryption context (for an export
 * password, the tenant and export, so it opens only for its own job and CloudTrail names the job).
 */
export class KmsSealer<C = ExportRef> implements Sealer<C> {
  private client: Promise<KMSClient> | undefined;
  constructor(
    private readonly keyRef: string,
    private readonly contextOf: (context: C) => Record<string, string> = encryptionContext as never,
  ) {}
  private kms() {
    this.client ??= import('@aws-sdk/client-kms').then(({ KMSClient }) => traced(new KMSClient({})));
    return this.client;
  }
  async seal(plain: string, context: C): Promise<string> {
    const { EncryptCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.kms()).send(
      new EncryptCommand({ KeyId: this.keyRef, Plaintext: Buffer.from(plain, 'utf8'), EncryptionContext: this.contextOf(context) }),
    );
    if (!out.CiphertextBlob) throw new Error('KMS returned no ciphertext');
    return Buffer.from(out.CiphertextBlob).toString('base64');
  }
  async unseal(sealed: string, context: C): Promise<string> {
    const { DecryptCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.kms()).send(
      new DecryptCommand({ KeyId: this.keyRef, CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: this.contextOf(context) }),
    );
    if (!out.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(out.Plaintext).toString('utf8');
  }
}

/** What a sealed secret is bound to (also the IAM condition's keys, lib/constructs/exports.ts). */
export function encryptionContext(ref: ExportRef): Record<string, string> {
  return { purpose: 'export-password', tenantId: ref.tenantId, exportId: ref.exportId };
}

/** What a sealed cloud secret is bound to: its tenant and name (and the version it was sealed as). */
export function cloudSecretContext(ref: { tenantId: string; name: string; version: number }): Record<string, string> {
  return { purpose: 'cloud-secret', tenantId: ref.tenantId, name: ref.name, version: String(ref.version) };
}

/**
 * Locally: AES-256-GCM under a 32-byte key file in `.local/` (as the signing key is a PEM
 * there), the same context as additional authenticated data, so a sealed secret moved to
 * another job or name fails to open, as with KMS; and KMS's plaintext limit.
 */
export class FileSealer<C = ExportRef> implements Sealer<C> {
  private readonly key: Buffer;
  constructor(
    path: string,
    private readonly contextOf: (context: C) => Record<string, string> = encryptionContext as never,
  ) {
    this.key = readFileSync(path);
    if (this.key.length !== 32) throw new Error('The key file must hold 32 bytes.');
  }
  async seal(plain: string, context: C): Promise<string> {
    if (Buffer.byteLength(plain, 'utf8') > KMS_MAX_PLAINTEXT_BYTES) throw new Error(`KMS encrypts at most ${KMS_MAX_PLAINTEXT_BYTES} bytes`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(JSON.stringify(this.contextOf(context))));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }
  async unseal(sealed: string, context: C): Promise<string> {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12)).setAAD(Buffer.from(JSON.stringify(this.contextOf(context))));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * A sealer chosen at first use from its key setting (`kms:<key>` on AWS, `file:<path>` locally),
 * so that a handler that never seals loads no KMS client and needs no key.
 */
function sealerFrom<C>(setting: 'EXPORTS_KEY' | 'SECRETS_KEY', contextOf: (context: C) => Record<string, string>): Sealer<C> {
  let made: Sealer<C> | undefined;
  const sealer = () => {
    if (made) return made;
    const ref = getStoreConfig()[setting];
    if (!ref) throw new Error(`${setting} is not configured for this function`);
    made = ref.startsWith('kms:') ? new KmsSealer(ref.slice(4), contextOf) : new FileSealer(ref.slice(5), contextOf);
    return made;
  };
  return { seal: (plain, context) => sealer().seal(plain, context), unseal: (sealed, context) => sealer().unseal(sealed, context) };
}

/** Seals export passwords with EXPORTS_KEY. */
export const secretSealer: SecretSealer = /* @__PURE__ */ sealerFrom('EXPORTS_KEY', encryptionContext);

/** Seals cloud secrets with SECRETS_KEY. */
export const cloudSecretSealer: Sealer<{ tenantId: string; name: string; version: number }> = /* @__PURE__ */ sealerFrom('SECRETS_KEY', cloudSecretContext);

/** What a sealed webhook signing secret is bound to: its tenant and webhook. */
export function webhookSecretContext(ref: { tenantId: string; webhookId: string }): Record<string, string> {
  return { purpose: 'webhook-secret', tenantId: ref.tenantId, webhookId: ref.webhookId };
}

/** Seals webhook signing secrets with SECRETS_KEY (the cloud secrets' key, another purpose in its context). */
export const webhookSecretSealer: Sealer<{ tenantId: string; webhookId: string }> = /* @__PURE__ */ sealerFrom('SECRETS_KEY', webhookSecretContext);
