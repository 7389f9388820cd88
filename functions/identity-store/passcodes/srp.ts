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
import { SRPRoutines, SRPServerSessionStep1 } from 'tssrp6a';
import { apiError, ERRORS } from '../../errors.js';
import {
  SRP_GROUP,
  SRP_ROUTINES,
  decodeBase64Strict,
  fromBytes,
  groupOf,
  hashBytesOf,
  parseSalt,
  requireIdentity,
  toBase64,
  toBytes,
} from './srp-client.js';

export * from './srp-client.js';

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

/** A verifier that is not base64 of a number 1 < v < N (the wire error INVALID_VERIFIER). */
export class InvalidVerifierError extends apiError('INVALID_VERIFIER') {
  constructor(message: string = ERRORS.INVALID_VERIFIER.message) {
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

