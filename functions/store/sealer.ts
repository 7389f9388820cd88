import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KMSClient } from '@aws-sdk/client-kms';
import { getStoreConfig } from '../config.js';
import type { ExportRef, SecretSealer } from '../exports/model.js';
import { traced } from '../observability/tracer.js';

/**
 * KMS on AWS: Encrypt/Decrypt with the exports key, the tenant and export as the encryption
 * context, so a sealed password opens only for its own job (and CloudTrail names the job).
 */
export class KmsSealer implements SecretSealer {
  private client: Promise<KMSClient> | undefined;
  constructor(private readonly keyRef: string) {}
  private kms() {
    this.client ??= import('@aws-sdk/client-kms').then(({ KMSClient }) => traced(new KMSClient({})));
    return this.client;
  }
  async seal(plain: string, context: ExportRef): Promise<string> {
    const { EncryptCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.kms()).send(
      new EncryptCommand({ KeyId: this.keyRef, Plaintext: Buffer.from(plain, 'utf8'), EncryptionContext: encryptionContext(context) }),
    );
    if (!out.CiphertextBlob) throw new Error('KMS returned no ciphertext');
    return Buffer.from(out.CiphertextBlob).toString('base64');
  }
  async unseal(sealed: string, context: ExportRef): Promise<string> {
    const { DecryptCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.kms()).send(
      new DecryptCommand({ KeyId: this.keyRef, CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: encryptionContext(context) }),
    );
    if (!out.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(out.Plaintext).toString('utf8');
  }
}

/** What a sealed secret is bound to (also the IAM condition's keys, lib/constructs/exports.ts). */
export function encryptionContext(ref: ExportRef): Record<string, string> {
  return { purpose: 'export-password', tenantId: ref.tenantId, exportId: ref.exportId };
}

/**
 * Locally: AES-256-GCM under a 32-byte key file in `.local/` (as the signing key is a PEM
 * there), the same context as additional authenticated data, so a sealed password moved to
 * another job fails to open, as with KMS.
 */
export class FileSealer implements SecretSealer {
  private readonly key: Buffer;
  constructor(path: string) {
    this.key = readFileSync(path);
    if (this.key.length !== 32) throw new Error('The exports key file must hold 32 bytes.');
  }
  async seal(plain: string, context: ExportRef): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(JSON.stringify(encryptionContext(context))));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }
  async unseal(sealed: string, context: ExportRef): Promise<string> {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12)).setAAD(Buffer.from(JSON.stringify(encryptionContext(context))));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

let sealer: SecretSealer | undefined;

/** The process's sealer, from EXPORTS_KEY (`kms:<key>` or `file:<path>`). */
export function exportSealer(): SecretSealer {
  if (sealer) return sealer;
  const ref = getStoreConfig().EXPORTS_KEY;
  if (!ref) throw new Error('EXPORTS_KEY is not configured for this function');
  sealer = ref.startsWith('kms:') ? new KmsSealer(ref.slice(4)) : new FileSealer(ref.slice(5));
  return sealer;
}

/** Seals and unseals with the process's sealer, chosen at first use. */
export const secretSealer: SecretSealer = {
  seal: (plain, context) => exportSealer().seal(plain, context),
  unseal: (sealed, context) => exportSealer().unseal(sealed, context),
};
