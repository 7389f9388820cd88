import { constants, createHash, generateKeyPairSync, privateEncrypt, sign as rsaSign, verify as rsaVerify, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetPublicKeyCommand, KMSClient, SignCommand, type SignCommandInput } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allPermissions } from '../../functions/auth/permissions.js';
import { buildAccessTokenClaims, signAccessToken } from '../../functions/auth/jwt.js';
import { FileSigner, KmsSigner } from '../../functions/auth/signer.js';

/**
 * KMS `Sign` as the service documents it, over a real RSA key: a RAW message of at most 4,096
 * bytes (ValidationException above), or a DIGEST whose length is the algorithm's (32 bytes for
 * SHA-256); either way an RSASSA-PKCS1-v1_5 signature over the SHA-256 of the message.
 */
const KMS_RAW_MESSAGE_LIMIT = 4096;
// DER of DigestInfo { sha256, NULL } before the 32-byte hash (RFC 8017, section 9.2, note 1).
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

class ValidationException extends Error {
  override readonly name = 'ValidationException';
  readonly $fault = 'client';
}

function fakeKmsSign(privateKey: KeyObject, input: SignCommandInput): Uint8Array {
  if (input.SigningAlgorithm !== 'RSASSA_PKCS1_V1_5_SHA_256') throw new ValidationException('unexpected signing algorithm');
  const message = Buffer.from(input.Message ?? []);
  const type = input.MessageType ?? 'RAW';
  if (type === 'RAW') {
    if (message.length > KMS_RAW_MESSAGE_LIMIT) {
      throw new ValidationException(
        "1 validation error detected: Value at 'message' failed to satisfy constraint: Member must have length less than or equal to 4096",
      );
    }
    return rsaSign('sha256', message, privateKey);
  }
  if (type === 'DIGEST') {
    if (message.length !== 32) throw new ValidationException('Digest is invalid length for algorithm RSASSA_PKCS1_V1_5_SHA_256.');
    return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, message]));
  }
  throw new ValidationException(`unknown MessageType ${type}`);
}

const kms = mockClient(KMSClient);
let privateKey: KeyObject;
let publicDer: Buffer;
let requests: SignCommandInput[];

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicDer = pair.publicKey.export({ format: 'der', type: 'spki' });
});

beforeEach(() => {
  requests = [];
  kms.reset();
  kms.on(SignCommand).callsFake((input: SignCommandInput) => {
    requests.push(input);
    return { KeyId: input.KeyId, Signature: fakeKmsSign(privateKey, input), SigningAlgorithm: input.SigningAlgorithm };
  });
  kms.on(GetPublicKeyCommand).resolves({ PublicKey: new Uint8Array(publicDer), KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
});

afterEach(() => kms.reset());

const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
/** The longest tenant id there can be: one DNS label of 63 characters (TENANT_ID_PATTERN). */
const LONGEST_TENANT = `t${'x'.repeat(61)}9`;

function claimsFor(tenantId: string) {
  return buildAccessTokenClaims({
    issuer: 'https://abcdefghij.execute-api.eu-west-1.amazonaws.com',
    audience: 'arthr-api',
    region: 'fir',
    tenantId,
    apiKeyId: '0b6f1c2e-8d7a-4e5b-9c3d-2a1f0e9d8c7b',
    // What the operator CLI gives a tenant's first key: every permission there is.
    permissions: allPermissions(tenantId),
    now: new Date(),
    ttlSeconds: 3600,
    jti: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  });
}

describe('KmsSigner', () => {
  it('signs a token for the longest tenant id with every permission, which KMS verifies as RS256', async () => {
    expect(LONGEST_TENANT).toHaveLength(63);
    const signer = new KmsSigner(KEY_ARN);
    const token = await signAccessToken(signer, claimsFor(LONGEST_TENANT));

    const jwks = { keys: [await signer.publicJwk()] };
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: 'https://abcdefghij.execute-api.eu-west-1.amazonaws.com',
      audience: 'arthr-api',
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader.kid).toBe('1234abcd-12ab-34cd-56ef-1234567890ab');
    expect(payload.tid).toBe(LONGEST_TENANT);
    expect(String(payload.scope).split(' ')).toHaveLength(allPermissions(LONGEST_TENANT).length);
  });

  it('hashes locally and sends KMS only the 32-byte SHA-256 digest of the signing input', async () => {
    const signer = new KmsSigner(KEY_ARN);
    const token = await signAccessToken(signer, claimsFor(LONGEST_TENANT));
    const signingInput = token.slice(0, token.lastIndexOf('.'));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ KeyId: KEY_ARN, MessageType: 'DIGEST', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' });
    expect(Buffer.from(requests[0]!.Message!)).toEqual(createHash('sha256').update(signingInput, 'ascii').digest());
  });

  it('signs a signing input far over the 4,096 bytes KMS takes as a raw message', async () => {
    const signer = new KmsSigner(KEY_ARN);
    const input = Buffer.alloc(64 * 1024, 'a');
    const signature = await signer.sign(input);
    // The same signature KMS would give the raw message, had it taken one this long.
    expect(Buffer.from(signature)).toEqual(rsaSign('sha256', input, privateKey));
  });

  it('fails when KMS returns no signature', async () => {
    kms.on(SignCommand).resolves({});
    await expect(new KmsSigner(KEY_ARN).sign(Buffer.from('x'))).rejects.toThrow(/no signature/);
  });

  it('reads the public key once, and again after a failed read', async () => {
    kms.on(GetPublicKeyCommand).rejectsOnce(new Error('throttled')).resolves({ PublicKey: new Uint8Array(publicDer) });
    const signer = new KmsSigner(KEY_ARN);
    await expect(signer.publicJwk()).rejects.toThrow('throttled');
    const jwk = await signer.publicJwk();
    await signer.publicJwk();
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: '1234abcd-12ab-34cd-56ef-1234567890ab' });
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(2);
  });
});

describe('FileSigner', () => {
  it('signs the digest as KMS does: the very signature of RS256 over the whole input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signer-'));
    writeFileSync(join(dir, 'k.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const signer = new FileSigner(join(dir, 'k.pem'));
    const input = Buffer.alloc(10_000, 'b');
    const signature = Buffer.from(await signer.sign(input));
    expect(signature).toEqual(rsaSign('sha256', input, privateKey));
    expect(signature).toEqual(Buffer.from(await new KmsSigner(KEY_ARN).sign(input)));
    expect(rsaVerify('sha256', Buffer.alloc(10_000, 'c'), publicDerKey(), signature)).toBe(false);
  });
});

function publicDerKey() {
  return { key: publicDer, format: 'der' as const, type: 'spki' as const };
}

describe('access token claims', () => {
  it('carry the permissions once, as the bare names in scope (no `permissions` claim)', () => {
    const claims = claimsFor('acme');
    expect(claims).not.toHaveProperty('permissions');
    expect(claims.scope).toContain('ProcessManager:getProcessInstance');
    expect(claims.scope).not.toContain('TNT#');
  });

  it('stay small for the longest tenant id with every permission', async () => {
    const token = await signAccessToken(new KmsSigner(KEY_ARN), claimsFor(LONGEST_TENANT));
    // The payload no longer grows with the tenant id once per permission.
    expect(JSON.stringify(decodeJwt(token)).length).toBeLessThan(2048);
  });
});
