/**
 * A software WebAuthn authenticator (plus the bits of the browser client around it) for tests that
 * talk HTTP to a server built on @simplewebauthn/server.
 *
 * It takes the JSON options the server hands to `startRegistration()` / `startAuthentication()`
 * and returns the JSON those @simplewebauthn/browser calls would produce, as a platform
 * authenticator doing ES256 (P-256) with `none` attestation:
 *
 * - clientDataJSON is `{type, challenge, origin, crossOrigin: false}`;
 * - authenticatorData is rpIdHash | flags (UP, UV if enabled, AT on registration) | signCount
 *   [| aaguid | credIdLen | credId | COSE EC2 key];
 * - assertion signatures are ECDSA P-256/SHA-256 over authData || SHA-256(clientDataJSON), DER;
 * - every binary field is base64url without padding.
 *
 * Like a browser it refuses (with an Error whose `name` is the DOMException name a browser would
 * use) when: an excluded credential is already present (InvalidStateError), ES256 was not offered
 * (NotSupportedError), the RP ID is not the origin's host or a parent domain of it (SecurityError),
 * or no usable credential exists for an assertion (NotAllowedError).
 *
 * `tweaks` let a test produce responses a real client would not (wrong origin/challenge/type/RP ID
 * hash, forced credential id or counter, UP/UV flags cleared) to exercise the server's checks.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type {
  AuthenticationExtensionsClientOutputs,
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** COSE algorithm identifier for ECDSA w/ SHA-256 on P-256. */
const ES256 = -7;

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface SoftAuthenticatorOptions {
  /** Authenticator model id put in the attested credential data. Defaults to the all-zero UUID. */
  aaguid?: string;
  /** Whether the authenticator verifies the user (sets the UV flag). Defaults to `true`. */
  userVerification?: boolean;
}

export interface CreateCredentialTweaks {
  /** Use this (base64url) credential id instead of 32 random bytes. Replaces a stored one with the same id. */
  credentialId?: string;
  /** clientDataJSON.origin (the RP ID / origin check still uses the real `origin` argument). */
  origin?: string;
  /** clientDataJSON.type (default `webauthn.create`). */
  type?: string;
  /** clientDataJSON.challenge (default `options.challenge`). */
  challenge?: string;
  /** RP ID hashed into authenticatorData (default `options.rp.id`); the credential is still stored under the requested RP ID. */
  rpId?: string;
  /** signCount in authenticatorData (default 0); also becomes the stored counter. */
  counter?: number;
  /** Override the UV flag for this response. */
  userVerification?: boolean;
  /** Override the UP flag for this response (default `true`). */
  userPresence?: boolean;
}

export interface GetAssertionTweaks {
  /** Sign with this stored credential, whatever allowCredentials / the RP ID say. */
  credentialId?: string;
  /** When picking a discoverable credential (empty allowCredentials), only consider this user handle. */
  userHandle?: string;
  /** signCount in authenticatorData (default stored + 1); also becomes the stored counter. */
  counter?: number;
  /** clientDataJSON.origin (the RP ID / origin check still uses the real `origin` argument). */
  origin?: string;
  /** clientDataJSON.type (default `webauthn.get`). */
  type?: string;
  /** clientDataJSON.challenge (default `options.challenge`). */
  challenge?: string;
  /** RP ID hashed into authenticatorData (default `options.rpId`, else the origin's host). Credential lookup still uses the requested RP ID. */
  rpId?: string;
  /** Override the UV flag for this response. */
  userVerification?: boolean;
  /** Override the UP flag for this response (default `true`). */
  userPresence?: boolean;
}

/** A stored credential, JSON-serialisable (export it, import it elsewhere to clone an authenticator). */
export interface SoftCredential {
  /** base64url credential id */
  id: string;
  rpId: string;
  /** base64url user handle (`options.user.id` at registration) */
  userHandle: string;
  /** P-256 private key as a JWK (kty, crv, x, y, d) */
  privateKey: JsonWebKey;
  /** last signature counter the authenticator reported */
  signCount: number;
  /** discoverable (resident) credential: usable with empty allowCredentials, returns userHandle */
  discoverable: boolean;
}

/** The errors a browser would raise as DOMExceptions; `name` carries the DOMException name. */
export class WebAuthnClientError extends Error {
  constructor(
    name: 'InvalidStateError' | 'NotAllowedError' | 'NotSupportedError' | 'SecurityError',
    message: string,
  ) {
    super(message);
    this.name = name;
  }
}

interface StoredCredential extends Omit<SoftCredential, 'privateKey'> {
  privateKey: KeyObject;
}

export class SoftAuthenticator {
  readonly aaguid: string;
  readonly userVerification: boolean;
  readonly #aaguidBytes: Buffer;
  /** insertion-ordered, keyed by normalised base64url id */
  readonly #credentials = new Map<string, StoredCredential>();

  constructor(opts: SoftAuthenticatorOptions = {}) {
    this.aaguid = (opts.aaguid ?? '00000000-0000-0000-0000-000000000000').toLowerCase();
    const hex = this.aaguid.replace(/-/g, '');
    if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`aaguid must be a UUID, got ${JSON.stringify(opts.aaguid)}`);
    this.#aaguidBytes = Buffer.from(hex, 'hex');
    this.userVerification = opts.userVerification ?? true;
  }

  /** navigator.credentials.create() + @simplewebauthn/browser's startRegistration(), in one. */
  createCredential(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    tweaks: CreateCredentialTweaks = {},
  ): RegistrationResponseJSON {
    const rpId = options.rp.id ?? hostOf(origin);
    checkRpId(rpId, origin);

    // An empty list means "ES256 and RS256" per the spec.
    const params = options.pubKeyCredParams ?? [];
    if (params.length > 0 && !params.some((p) => p.alg === ES256 && p.type === 'public-key')) {
      throw new WebAuthnClientError(
        'NotSupportedError',
        `SoftAuthenticator only does ES256 (-7); offered ${params.map((p) => p.alg).join(', ')}`,
      );
    }

    for (const excluded of options.excludeCredentials ?? []) {
      const stored = this.#credentials.get(normaliseId(excluded.id));
      if (stored && stored.rpId === rpId) {
        throw new WebAuthnClientError(
          'InvalidStateError',
          `The authenticator already holds excluded credential ${stored.id} for ${rpId}`,
        );
      }
    }

    const idBytes = tweaks.credentialId === undefined ? randomBytes(32) : decodeId(tweaks.credentialId);
    const id = b64url(idBytes);
    const counter = tweaks.counter ?? 0;
    checkCounter(counter);

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = encodeCbor(
      new Map<number, CborValue>([
        [1, 2], // kty: EC2
        [3, ES256], // alg
        [-1, 1], // crv: P-256
        [-2, coordinate(jwk.x)],
        [-3, coordinate(jwk.y)],
      ]),
    );

    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(idBytes.length);
    const authData = Buffer.concat([
      authDataHead(tweaks.rpId ?? rpId, this.#flags(tweaks) | FLAG_AT, counter),
      this.#aaguidBytes,
      idLength,
      idBytes,
      coseKey,
    ]);
    const attestationObject = encodeCbor(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = clientData(
      tweaks.type ?? 'webauthn.create',
      tweaks.challenge ?? options.challenge,
      tweaks.origin ?? origin,
    );

    const selection = options.authenticatorSelection;
    // Platform passkey providers make discoverable credentials unless told not to.
    const discoverable = selection?.residentKey !== 'discouraged' || selection.requireResidentKey === true;
    this.#credentials.delete(id); // re-insert at the end: newest credential is picked first
    this.#credentials.set(id, {
      id,
      rpId,
      userHandle: normaliseId(options.user.id),
      privateKey,
      signCount: counter,
      discoverable,
    });

    const clientExtensionResults: AuthenticationExtensionsClientOutputs = {};
    if (options.extensions?.credProps) clientExtensionResults.credProps = { rk: discoverable };

    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
        publicKeyAlgorithm: ES256,
        publicKey: b64url(publicKey.export({ type: 'spki', format: 'der' })),
        authenticatorData: b64url(authData),
      },
      clientExtensionResults,
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get() + @simplewebauthn/browser's startAuthentication(), in one. */
  getAssertion(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
    tweaks: GetAssertionTweaks = {},
  ): AuthenticationResponseJSON {
    const rpId = options.rpId ?? hostOf(origin);
    checkRpId(rpId, origin);

    const credential = this.#select(rpId, options, tweaks);
    const counter = tweaks.counter ?? credential.signCount + 1;
    checkCounter(counter);
    credential.signCount = counter;

    const authData = authDataHead(tweaks.rpId ?? rpId, this.#flags(tweaks), counter);
    const clientDataJSON = clientData(
      tweaks.type ?? 'webauthn.get',
      tweaks.challenge ?? options.challenge,
      tweaks.origin ?? origin,
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), {
      key: credential.privateKey,
      dsaEncoding: 'der',
    });

    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        // A non-discoverable credential has no stored user handle (the browser reports null).
        ...(credential.discoverable ? { userHandle: credential.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Ids (base64url) of the stored credentials, oldest first. */
  credentials(): string[] {
    return [...this.#credentials.keys()];
  }

  /** A JSON-serialisable copy of a stored credential, private key and counter included. */
  exportCredential(id: string): SoftCredential {
    const stored = this.#credentials.get(normaliseId(id));
    if (!stored) throw new Error(`SoftAuthenticator holds no credential ${id}`);
    return {
      id: stored.id,
      rpId: stored.rpId,
      userHandle: stored.userHandle,
      privateKey: stored.privateKey.export({ format: 'jwk' }),
      signCount: stored.signCount,
      discoverable: stored.discoverable,
    };
  }

  /** Store a copy of an exported credential (replacing one with the same id), e.g. to clone an authenticator. */
  importCredential(credential: SoftCredential): void {
    const id = b64url(decodeId(credential.id));
    checkCounter(credential.signCount);
    const privateKey = createPrivateKey({ key: credential.privateKey, format: 'jwk' });
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error('SoftAuthenticator only imports P-256 keys');
    }
    this.#credentials.delete(id);
    this.#credentials.set(id, {
      id,
      rpId: credential.rpId,
      userHandle: normaliseId(credential.userHandle),
      privateKey,
      signCount: credential.signCount,
      discoverable: credential.discoverable,
    });
  }

  #flags(tweaks: { userPresence?: boolean; userVerification?: boolean }): number {
    let flags = 0;
    if (tweaks.userPresence ?? true) flags |= FLAG_UP;
    if (tweaks.userVerification ?? this.userVerification) flags |= FLAG_UV;
    return flags;
  }

  #select(rpId: string, options: PublicKeyCredentialRequestOptionsJSON, tweaks: GetAssertionTweaks): StoredCredential {
    if (tweaks.credentialId !== undefined) {
      const forced = this.#credentials.get(normaliseId(tweaks.credentialId));
      if (!forced) throw new WebAuthnClientError('NotAllowedError', `No stored credential ${tweaks.credentialId}`);
      return forced;
    }
    const allowed = options.allowCredentials ?? [];
    if (allowed.length > 0) {
      for (const descriptor of allowed) {
        const stored = this.#credentials.get(normaliseId(descriptor.id));
        if (stored && stored.rpId === rpId) return stored;
      }
      throw new WebAuthnClientError('NotAllowedError', `None of the allowed credentials is stored for ${rpId}`);
    }
    const wantedUser = tweaks.userHandle === undefined ? undefined : normaliseId(tweaks.userHandle);
    const candidates = [...this.#credentials.values()].filter(
      (c) => c.rpId === rpId && c.discoverable && (wantedUser === undefined || c.userHandle === wantedUser),
    );
    const newest = candidates.at(-1);
    if (!newest) throw new WebAuthnClientError('NotAllowedError', `No discoverable credential stored for ${rpId}`);
    return newest;
  }
}

// ---------------------------------------------------------------------------------------------

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** base64url (padding tolerated) → bytes, rejecting anything that is not base64url. */
function decodeId(id: string): Buffer {
  const trimmed = id.replace(/=+$/, '');
  if (!/^[A-Za-z0-9_-]+$/.test(trimmed)) throw new Error(`Not a base64url id: ${JSON.stringify(id)}`);
  const bytes = Buffer.from(trimmed, 'base64url');
  if (bytes.length === 0 || bytes.length > 1023) throw new Error(`Credential id must be 1..1023 bytes, got ${bytes.length}`);
  return bytes;
}

/** Canonical unpadded base64url form of a base64url string, for comparisons. */
function normaliseId(id: string): string {
  return Buffer.from(id, 'base64url').toString('base64url');
}

function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

function hostOf(origin: string): string {
  return new URL(origin).hostname;
}

/** A browser only lets an origin use its own host or a parent domain of it as RP ID. */
function checkRpId(rpId: string, origin: string): void {
  const host = hostOf(origin);
  if (host !== rpId && !host.endsWith(`.${rpId}`)) {
    throw new WebAuthnClientError('SecurityError', `RP ID ${rpId} is not valid for origin ${origin}`);
  }
}

function checkCounter(counter: number): void {
  if (!Number.isInteger(counter) || counter < 0 || counter > 0xffffffff) {
    throw new Error(`signCount must be a uint32, got ${counter}`);
  }
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
}

function authDataHead(rpId: string, flags: number, counter: number): Buffer {
  const head = Buffer.alloc(37);
  sha256(rpId).copy(head, 0);
  head[32] = flags;
  head.writeUInt32BE(counter, 33);
  return head;
}

/** A JWK EC coordinate as the 32-byte big-endian string COSE wants. */
function coordinate(value: string | undefined): Buffer {
  if (value === undefined) throw new Error('JWK is missing a coordinate');
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length > 32) throw new Error('P-256 coordinate longer than 32 bytes');
  return Buffer.concat([Buffer.alloc(32 - bytes.length), bytes]);
}

// Minimal CBOR encoder (RFC 8949) for the few types WebAuthn needs here: integers, text and byte
// strings, maps. Always uses the shortest argument encoding, which @simplewebauthn relies on: it
// finds the end of the COSE key in authData by decoding and re-encoding it.

type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

function cborHead(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = type | 25;
    b.writeUInt16BE(argument, 1);
    return b;
  }
  if (argument <= 0xffffffff) {
    const b = Buffer.alloc(5);
    b[0] = type | 26;
    b.writeUInt32BE(argument, 1);
    return b;
  }
  throw new Error(`CBOR argument too large: ${argument}`);
}

function encodeCbor(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`CBOR encoder only does integers, got ${value}`);
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  const parts = [cborHead(5, value.size)];
  for (const [k, v] of value) parts.push(encodeCbor(k), encodeCbor(v));
  return Buffer.concat(parts);
}
