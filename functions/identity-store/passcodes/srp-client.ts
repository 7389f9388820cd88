/**
 * SRP-6a, the part a client needs: the group, the routines, the wire encodings, and the client
 * side of registration (the verifier) and login (A, M1). Browser-safe: nothing from Node, only
 * tssrp6a and web-standard globals (WebCrypto, atob/btoa, TextEncoder), so the journey pages'
 * passcode script bundles it as it is. The formulas and encodings are described in srp.ts,
 * which adds the server side.
 */
import { SRPClientSession, SRPParameters, SRPRoutines, type HashFunction } from 'tssrp6a';

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

export function toBase64(bytes: Uint8Array): string {
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

export function groupOf(routines: SRPRoutines) {
  const { N, g } = routines.parameters.primeGroup;
  return { N, g, nBytes: Math.ceil(routines.parameters.NBits / 8) };
}

export async function hashBytesOf(routines: SRPRoutines): Promise<number> {
  return (await routines.hash(new ArrayBuffer(0))).byteLength;
}

/** The salt as tssrp6a takes it; refuses what `newSalt` never makes (a programming or data error). */
export function parseSalt(salt: string): bigint {
  const bytes = decodeBase64Strict(salt, 1024);
  if (!bytes || bytes[0] === 0) throw new Error('SRP salt is not canonical base64 without a leading zero byte');
  return fromBytes(bytes);
}


export function requireIdentity(identity: string): void {
  if (typeof identity !== 'string' || !identity.trim()) throw new Error('SRP identity must not be empty');
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

