import { constants, createHash, createPrivateKey, createPublicKey, privateEncrypt, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { traced } from '../observability/tracer.js';

/**
 * Signs access tokens with a private key that never leaves its store: a KMS asymmetric key in
 * AWS (the Lambda only ever sees signatures), a PEM file under `.local/` on one machine.
 * RS256 because the API Gateway JWT authorizer accepts only RSA signatures.
 */
export interface TokenSigner {
  /** The `kid` published in the JWKS and put in every token header. */
  keyId(): Promise<string>;
  /** RSASSA-PKCS1-v1_5 with SHA-256 over `data` (of any length: it is hashed here, see signingDigest). */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** The public half as a JWK (with `kid`, `alg`, `use`). */
  publicJwk(): Promise<JWK>;
}

/**
 * The SHA-256 digest a signer signs. Both signers hash locally and sign the digest: KMS takes a
 * RAW message of at most 4,096 bytes, and a token's signing input grows with its claims, so
 * the KMS signer sends the 32-byte digest (`MessageType: DIGEST`), which KMS signs exactly as it
 * would have signed the message. The file signer does the same, so both targets run one path.
 */
export function signingDigest(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

// DER of DigestInfo { id-sha256, NULL } that precedes the hash in an RSASSA-PKCS1-v1_5
// signature (RFC 8017, section 9.2, note 1).
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

export class FileSigner implements TokenSigner {
  private readonly privateKey: KeyObject;
  private jwk: Promise<JWK> | undefined;

  constructor(pemPath: string) {
    this.privateKey = createPrivateKey(readFileSync(pemPath));
    if (this.privateKey.asymmetricKeyType !== 'rsa') throw new Error('The signing key must be an RSA key.');
  }

  async keyId(): Promise<string> {
    return (await this.jwkOnce()).kid!;
  }

  async sign(data: Uint8Array): Promise<Uint8Array> {
    // EMSA-PKCS1-v1_5 over a digest made beforehand: what KMS does with MessageType DIGEST
    // (type 1 padding of DigestInfo || hash, then the private-key operation).
    const digest = signingDigest(data);
    return privateEncrypt({ key: this.privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, digest]));
  }

  publicJwk(): Promise<JWK> {
    return this.jwkOnce();
  }

  private jwkOnce(): Promise<JWK> {
    this.jwk ??= (async () => {
      const pub = createPublicKey(this.privateKey).export({ format: 'jwk' }) as JWK;
      const kid = await calculateJwkThumbprint({ kty: pub.kty!, n: pub.n!, e: pub.e! });
      return { kty: pub.kty!, n: pub.n!, e: pub.e!, kid, alg: 'RS256', use: 'sig' };
    })();
    return this.jwk;
  }
}

export class KmsSigner implements TokenSigner {
  private client: Promise<import('@aws-sdk/client-kms').KMSClient> | undefined;
  private jwk: Promise<JWK> | undefined;

  /** `keyRef` is the KMS key id or ARN; the kid is the bare key id (no account in it). */
  constructor(private readonly keyRef: string) {}

  private kms() {
    // Loaded on first use so that importing a handler makes no client and no network call.
    this.client ??= import('@aws-sdk/client-kms').then(({ KMSClient }) => traced(new KMSClient({})));
    return this.client;
  }

  async keyId(): Promise<string> {
    return this.keyRef.split('/').pop()!;
  }

  async sign(data: Uint8Array): Promise<Uint8Array> {
    const { SignCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.kms()).send(
      new SignCommand({
        KeyId: this.keyRef,
        // Never RAW: KMS refuses a raw message over 4,096 bytes (see signingDigest).
        Message: signingDigest(data),
        MessageType: 'DIGEST',
        SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
      }),
    );
    if (!out.Signature) throw new Error('KMS returned no signature');
    return out.Signature;
  }

  publicJwk(): Promise<JWK> {
    this.jwk ??= (async () => {
      const { GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
      const out = await (await this.kms()).send(new GetPublicKeyCommand({ KeyId: this.keyRef }));
      if (!out.PublicKey) throw new Error('KMS returned no public key');
      const pub = createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({
        format: 'jwk',
      }) as JWK;
      return { kty: pub.kty!, n: pub.n!, e: pub.e!, kid: await this.keyId(), alg: 'RS256', use: 'sig' };
    })();
    this.jwk.catch(() => (this.jwk = undefined));
    return this.jwk;
  }
}

const signers = new Map<string, TokenSigner>();

/** One signer per key reference per process: `kms:<key>` or `file:<path>`. */
export function signerFor(ref: string): TokenSigner {
  let signer = signers.get(ref);
  if (!signer) {
    const [kind, ...rest] = ref.split(':');
    const target = rest.join(':');
    if (kind === 'kms') signer = new KmsSigner(target);
    else if (kind === 'file') signer = new FileSigner(target);
    else throw new Error(`Unknown signing key reference kind: ${kind}`);
    signers.set(ref, signer);
  }
  return signer;
}
