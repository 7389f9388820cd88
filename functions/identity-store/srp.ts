/**
 * SRP-6a for passcodes: the group and encodings the service uses, verifier parsing, the server
 * side of the login handshake, and a client side usable in tests (and later in the browser).
 *
 * No storage and no SDK here (DESIGN.md style 2): every function takes the stored record's
 * fields explicitly and returns a typed result; the caller stores `b` between the two login
 * steps.
 *
 * The arithmetic is tssrp6a's (`SRPRoutines`, `SRPClientSession`, `SRPServerSessionStep1`) with
 * one override: tssrp6a's default identity hash is Nimbus-style `H(P)` and ignores I; RFC 5054
 * (and this service) uses `H(I | ":" | P)` (see `Rfc5054Routines`). With that override the
 * library reproduces the RFC 5054 Appendix B vectors (test/unit/srp.test.ts).
 *
 * ## What a client computes (the server checks exactly this)
 *
 * Numbers are unsigned big-endian integers. `H` = SHA-256. `|` = concatenation of bytes.
 * `PAD(x)` = x left-padded with zero bytes to the length of N (256 bytes). Where no PAD is
 * written, a number is hashed in its minimal encoding (no leading zero bytes), as tssrp6a does.
 *
 *   x  = H(s | H(I | ":" | P))     I, P as UTF-8 (P is not normalised here; the client decides
 *                                  and must do the same at registration and at login)
 *   v  = g^x mod N                 (the verifier, sent at registration)
 *   k  = H(N | PAD(g))
 *   A  = g^a mod N                 a: random, 256 bytes reduced mod N (tssrp6a)
 *   B  = (k*v + g^b) mod N         b: likewise
 *   u  = H(PAD(A) | PAD(B))        both sides abort when u = 0; the server aborts when A mod N = 0,
 *                                  the client when B mod N = 0
 *   S  = (B - k*g^x)^(a + u*x) mod N  = (A * v^u)^b mod N
 *   M1 = H(A | B | S)              (tssrp6a's client evidence; not RFC 2945's H(H(N)^H(g)|H(I)|s|A|B|K))
 *   M2 = H(A | M1 | S)
 *
 * The salt `s` is hashed in its minimal encoding too; the service's salts never start with a
 * zero byte (see `newSalt`), so that is exactly the salt's bytes as sent.
 *
 * ## Wire encodings
 *
 * Every number (n, g, salt, verifier, A, B, M1, M2) is standard base64 (RFC 4648 section 4, with
 * `=` padding, no whitespace) of its unsigned big-endian bytes. What we emit is fixed-length:
 * v, A, B padded to 256 bytes; M1, M2 32 bytes; salts 32 bytes. What we accept is checked
 * strictly (canonical base64 only), but leading zero bytes are allowed in v and A.
 *
 * Only `timingSafeEqual` comes from node:crypto (server side); the client helpers need nothing
 * beyond tssrp6a and web-standard globals (WebCrypto, atob/btoa, TextEncoder).
 */
import { timingSafeEqual } from 'node:crypto';
import { SRPClientSession, SRPParameters, SRPRoutines, SRPServerSessionStep1, type HashFunction } from 'tssrp6a';
import { ApiError } from '../errors.js';

// ---------------------------------------------------------------------------------------------
// The group
// ---------------------------------------------------------------------------------------------

/** RFC 5054 Appendix A, the 2048-bit group (equal to tssrp6a's `SRPParameters.PrimeGroup[2048]`). */
const RFC5054_2048_N = hex(
  'AC6BDB41 324A9A9B F166DE5E 1389582F AF72B665 1987EE07 FC319294 3DB56050 A37329CB B4A099ED' +
    '8193E075 7767A13D D52312AB 4B03310D CD7F48A9 DA04FD50 E8083969 EDB767B0 CF609517 9A163AB3' +
    '661A05FB D5FAAAE8 2918A996 2F0B93B8 55F97993 EC975EEA A80D740A DBF4FF74 7359D041 D5C33EA7' +
    '1D281E44 6B14773B CA97B43A 23FB8016 76BD207A 436C6481 F1D2B907 8717461A 5B9D32E6 88F87748' +
    '544523B5 24B0D57D 5EA77A27 75D2ECFA 032CFBDB F52FB378 61602790 04E57AE6 AF874E73 03CE5329' +
    '9CCC041C 7BC308D8 2A5698F3 A8D0C382 71AE35F8 E9DBFBB6 94B5C803 D89F7AE4 35DE236D 525F5475' +
    '9B65E372 FCD68EF2 0FA7111F 9E4AFF73',
);

/** A number written in hex, whitespace ignored (as the RFCs print them). */
function hex(text: string): bigint {
  return BigInt(`0x${text.replace(/\s+/g, '')}`);
}

function sha256(): HashFunction {
  const h = SRPParameters.H['SHA256'];
  if (!h) throw new Error('tssrp6a has no SHA256 hash function');
  return h;
}

/** The group passcodes use: RFC 5054's 2048-bit group, g = 2, SHA-256. */
export const SRP_GROUP = {
  name: 'rfc5054-2048',
  N: RFC5054_2048_N,
  g: 2n,
  hash: 'SHA-256',
  /** Length of N in bytes: what PAD() pads to, and the length of v, A and B as we emit them. */
  nBytes: 256,
  /** Length of H's output: the length of M1 and M2. */
  hashBytes: 32,
  /** Salt length (see `newSalt`). */
  saltBytes: 32,
} as const;

/**
 * The SRP-6a routines of RFC 5054: tssrp6a's, with the identity hash `H(I | ":" | P)` instead of
 * its default `H(P)`. Exported so the RFC 5054 vectors can be checked with another group/hash.
 */
export class Rfc5054Routines extends SRPRoutines {
  override computeIdentityHash(I: string, P: string): Promise<ArrayBuffer> {
    return this.hash(new TextEncoder().encode(`${I}:${P}`).buffer);
  }
}

/** The routines for `SRP_GROUP`. */
export const SRP_ROUTINES: SRPRoutines = new Rfc5054Routines(
  new SRPParameters({ N: SRP_GROUP.N, g: SRP_GROUP.g }, sha256()),
);

/**
 * What the API returns as `algorithmInfo.parameters` (the caller adds `i`, the salt and the
 * identity). `n` and `g` are base64 of their big-endian bytes, like every other SRP number on
 * the wire, so a client needs one decoder; `g` is therefore `"Ag=="` (the byte 0x02).
 * `routines` names the formulas of this file's header in one line.
 */
export const SRP_ALGORITHM = {
  group: SRP_GROUP.name,
  n: toBase64(toBytes(SRP_GROUP.N, SRP_GROUP.nBytes)),
  g: toBase64(toBytes(SRP_GROUP.g)),
  hash: SRP_GROUP.hash,
  saltBytes: SRP_GROUP.saltBytes,
  routines:
    'x=H(s|H(I|":"|P)) v=g^x k=H(N|PAD(g)) u=H(PAD(A)|PAD(B)) S=(B-k*g^x)^(a+u*x) M1=H(A|B|S) M2=H(A|M1|S); ' +
    'unpadded values are minimal big-endian; I, P UTF-8',
} as const;

// ---------------------------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------------------------

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Strict base64: standard alphabet, `=` padding, no whitespace, unused bits zero (it must
 * re-encode to itself), 1 to `maxBytes` bytes. Anything else is `undefined`.
 */
export function decodeBase64Strict(text: unknown, maxBytes: number): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 4 * Math.ceil(maxBytes / 3)) return undefined;
  if (!BASE64.test(text)) return undefined;
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  if (bytes.length === 0 || bytes.length > maxBytes || toBase64(bytes) !== text) return undefined;
  return bytes;
}

/** Unsigned big-endian bytes of n, left-padded to `length` (minimal, at least one byte, without). */
export function toBytes(n: bigint, length = 0): Uint8Array {
  if (n < 0n) throw new RangeError('negative');
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (length && hex.length / 2 > length) throw new RangeError(`${hex.length / 2} bytes do not fit in ${length}`);
  hex = hex.padStart(length * 2, '0');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function fromBytes(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

function groupOf(routines: SRPRoutines) {
  const { N, g } = routines.parameters.primeGroup;
  return { N, g, nBytes: Math.ceil(routines.parameters.NBits / 8) };
}

async function hashBytesOf(routines: SRPRoutines): Promise<number> {
  return (await routines.hash(new ArrayBuffer(0))).byteLength;
}

// ---------------------------------------------------------------------------------------------
// Salt and verifier
// ---------------------------------------------------------------------------------------------

/**
 * A new salt: base64 of 32 random bytes (256 bits, the output size of H, far past any chance of
 * two users sharing a salt; tssrp6a's own default would be 64). The first byte is never zero:
 * tssrp6a hashes the salt as a bigint's minimal encoding, so a leading zero byte would be
 * dropped from x's input, and a client hashing the salt's bytes as sent would disagree.
 */
export function newSalt(): string {
  const bytes = new Uint8Array(SRP_GROUP.saltBytes);
  do globalThis.crypto.getRandomValues(bytes);
  while (bytes[0] === 0);
  return toBase64(bytes);
}

/** The salt as tssrp6a takes it; refuses what `newSalt` never makes (a programming or data error). */
function parseSalt(salt: string): bigint {
  const bytes = decodeBase64Strict(salt, 1024);
  if (!bytes || bytes[0] === 0) throw new Error('SRP salt is not canonical base64 without a leading zero byte');
  return fromBytes(bytes);
}

/** A verifier that is not base64 of a number 1 < v < N (the wire error INVALID_VERIFIER). */
export class InvalidVerifierError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'INVALID_VERIFIER';
  constructor(message = 'srpRegistrationData.verifier must be base64 of a number greater than 1 and less than N.') {
    super(message, [{ location: 'body.srpRegistrationData.verifier', message }]);
  }
}

/**
 * Parses a verifier sent at registration: strict base64 of at most 256 bytes (leading zero bytes
 * allowed), and 1 < v < N. Throws `InvalidVerifierError` otherwise.
 */
export function parseVerifier(base64: string): bigint {
  return parseVerifierIn(base64, SRP_ROUTINES);
}

function parseVerifierIn(base64: string, routines: SRPRoutines): bigint {
  const { N, nBytes } = groupOf(routines);
  const bytes = decodeBase64Strict(base64, nBytes);
  if (!bytes) throw new InvalidVerifierError(`srpRegistrationData.verifier is not canonical base64 of at most ${nBytes} bytes.`);
  const v = fromBytes(bytes);
  if (v <= 1n || v >= N) throw new InvalidVerifierError();
  return v;
}

/** The canonical form of a verifier: base64 of 256 bytes. Store this, compare this. */
export function verifierToBase64(v: bigint): string {
  if (v <= 1n || v >= SRP_GROUP.N) throw new RangeError('verifier out of range');
  return toBase64(toBytes(v, SRP_GROUP.nBytes));
}

// ---------------------------------------------------------------------------------------------
// Login, server side
// ---------------------------------------------------------------------------------------------

export type LoginFailure = 'A_MOD_N_ZERO' | 'U_ZERO' | 'BAD_PROOF' | 'MALFORMED';
export type FinishLoginResult = { ok: true; M2: string } | { ok: false; reason: LoginFailure };

export interface StoredPasscode {
  /** The I of x = H(s | H(I | ":" | P)); the same string the client used at registration. */
  identity: string;
  /** base64, as made by `newSalt`. */
  salt: string;
  /** base64, as accepted by `parseVerifier`. */
  verifier: string;
}

function requireIdentity(identity: string): void {
  if (typeof identity !== 'string' || !identity.trim()) throw new Error('SRP identity must not be empty');
}

/** B = (k*v + g^b) mod N, as tssrp6a's server computes it (its function is not exported). */
async function serverPublicValue(routines: SRPRoutines, v: bigint, b: bigint): Promise<bigint> {
  const k = await routines.computeK();
  return (k * v + routines.computeClientPublicValue(b)) % routines.parameters.primeGroup.N;
}

/**
 * The RFC 5054 aborts, as a pure check: A mod N = 0 (else a client could force S = 0) and
 * u = 0 (else S would not depend on v). u = 0 needs a hash preimage, so it is tested through this
 * function and through `finishLogin` with routines whose u is forced to 0.
 */
export function abortReason(A: bigint, u: bigint, N: bigint = SRP_GROUP.N): 'A_MOD_N_ZERO' | 'U_ZERO' | undefined {
  if (A % N === 0n) return 'A_MOD_N_ZERO';
  if (u === 0n) return 'U_ZERO';
  return undefined;
}

/**
 * First step of a login: a fresh secret b and B = k*v + g^b. Store `b` (secret: base64 of 256
 * bytes) with the login attempt and send `B`; `finishLogin` needs only `b` back.
 */
export async function startLogin(
  input: StoredPasscode,
  routines: SRPRoutines = SRP_ROUTINES,
): Promise<{ b: string; B: string }> {
  requireIdentity(input.identity);
  parseSalt(input.salt);
  const v = parseVerifierIn(input.verifier, routines);
  const { nBytes } = groupOf(routines);
  const b = routines.generatePrivateValue();
  const B = await serverPublicValue(routines, v, b);
  return { b: toBase64(toBytes(b, nBytes)), B: toBase64(toBytes(B, nBytes)) };
}

/**
 * Second step: checks the client's A and M1 against the stored passcode and the `b` of
 * `startLogin`. Results:
 * - `MALFORMED`: A or M1 not canonical base64; A longer than 512 bytes or, when not a multiple
 *   of N, not below N (we only accept reduced values); M1 not exactly 32 bytes.
 * - `A_MOD_N_ZERO`, `U_ZERO`: the RFC 5054 aborts (checked here; tssrp6a checks only the first).
 * - `BAD_PROOF`: M1 differs from H(A | B | S) (compared in constant time; tssrp6a's own check is
 *   a bigint `!==`, which is not, so it is not used).
 * - ok, with M2 = H(A | M1 | S) for the client to check.
 * A corrupt `b` (not what `startLogin` returned) throws: it is server state, not client input.
 * `routines` is for tests (another group, or u forced to 0); production uses the default.
 */
export async function finishLogin(
  input: StoredPasscode & { b: string; A: string; M1: string },
  routines: SRPRoutines = SRP_ROUTINES,
): Promise<FinishLoginResult> {
  requireIdentity(input.identity);
  const s = parseSalt(input.salt);
  const v = parseVerifierIn(input.verifier, routines);
  const { N, nBytes } = groupOf(routines);
  const bBytes = decodeBase64Strict(input.b, nBytes);
  const b = bBytes && fromBytes(bBytes);
  if (b === undefined || bBytes?.length !== nBytes || b <= 0n || b >= N) throw new Error('SRP login state b is corrupt');

  const hashBytes = await hashBytesOf(routines);
  const aBytes = decodeBase64Strict(input.A, 2 * nBytes);
  const m1Bytes = decodeBase64Strict(input.M1, hashBytes);
  if (!aBytes || !m1Bytes || m1Bytes.length !== hashBytes) return { ok: false, reason: 'MALFORMED' };
  const A = fromBytes(aBytes);
  if (A % N === 0n) return { ok: false, reason: 'A_MOD_N_ZERO' };
  if (A >= N) return { ok: false, reason: 'MALFORMED' };

  const B = await serverPublicValue(routines, v, b);
  const u = await routines.computeU(A, B);
  const abort = abortReason(A, u, N);
  if (abort) return { ok: false, reason: abort };

  const server = new SRPServerSessionStep1(routines, input.identity, s, v, b, B);
  const S = await server.sessionKey(A);
  const expected = await routines.computeClientEvidence(input.identity, s, A, B, S);
  if (!timingSafeEqual(toBytes(expected, hashBytes), m1Bytes)) return { ok: false, reason: 'BAD_PROOF' };
  const M2 = await routines.computeServerEvidence(A, expected, S);
  return { ok: true, M2: toBase64(toBytes(M2, hashBytes)) };
}

// ---------------------------------------------------------------------------------------------
// Client side (tests now; the browser later)
// ---------------------------------------------------------------------------------------------

export interface ClientCredentials {
  identity: string;
  password: string;
  /** base64, as `startPasscodeRegistration` returned it. */
  salt: string;
}

/** The verifier for registration: v = g^x, base64 of 256 bytes. */
export async function clientRegistration(input: ClientCredentials, routines: SRPRoutines = SRP_ROUTINES): Promise<string> {
  requireIdentity(input.identity);
  if (!input.password) throw new Error('SRP password must not be empty');
  const x = await routines.computeX(input.identity, parseSalt(input.salt), input.password);
  const v = routines.computeVerifier(x);
  return toBase64(toBytes(v, groupOf(routines).nBytes));
}

/**
 * The client's answer to B: A and M1 to send, and the M2 the server must return (compare it
 * before trusting the server). Throws when B mod N = 0 or u = 0 (the RFC 5054 client aborts,
 * which tssrp6a's client does not make except for B = 0) or B is not canonical base64.
 */
export async function clientLogin(
  input: ClientCredentials & { B: string },
  routines: SRPRoutines = SRP_ROUTINES,
): Promise<{ A: string; M1: string; expectedM2: string }> {
  const { N, nBytes } = groupOf(routines);
  const bBytes = decodeBase64Strict(input.B, nBytes);
  if (!bBytes) throw new Error('SRP B is not canonical base64 of at most |N| bytes');
  const B = fromBytes(bBytes);
  if (B % N === 0n) throw new Error('SRP abort: B mod N = 0');
  const step1 = await new SRPClientSession(routines).step1(input.identity, input.password);
  const step2 = await step1.step2(parseSalt(input.salt), B);
  if ((await routines.computeU(step2.A, B)) === 0n) throw new Error('SRP abort: u = 0');
  const hashBytes = await hashBytesOf(routines);
  const M2 = await routines.computeServerEvidence(step2.A, step2.M1, step2.S);
  return {
    A: toBase64(toBytes(step2.A, nBytes)),
    M1: toBase64(toBytes(step2.M1, hashBytes)),
    expectedM2: toBase64(toBytes(M2, hashBytes)),
  };
}
