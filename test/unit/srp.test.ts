import { createHash } from 'node:crypto';
import { SRPClientSession, SRPParameters, SRPRoutines, SRPServerSession } from 'tssrp6a';
import { describe, expect, it } from 'vitest';
import {
  InvalidVerifierError,
  Rfc5054Routines,
  SRP_ALGORITHM,
  SRP_GROUP,
  SRP_ROUTINES,
  abortReason,
  clientLogin,
  clientRegistration,
  decodeBase64Strict,
  finishLogin,
  fromBytes,
  newSalt,
  parseVerifier,
  startLogin,
  toBytes,
  verifierToBase64,
} from '../../functions/identity-store/passcodes/srp.js';

/** Hex as the RFCs print it (groups of 8 digits, line breaks). */
const hex = (text: string) => BigInt(`0x${text.replace(/\s+/g, '')}`);
const b64 = (n: bigint, length = 0) => Buffer.from(toBytes(n, length)).toString('base64');
const bytesB64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');

/** tssrp6a draws a and b from `generatePrivateValue`; the RFC vectors fix them. */
class FixedPrivateValue extends Rfc5054Routines {
  constructor(
    parameters: SRPParameters,
    private readonly value: bigint,
  ) {
    super(parameters);
  }
  override generatePrivateValue(): bigint {
    return this.value;
  }
}

// RFC 5054, Appendix A (1024-bit group) and Appendix B (test vectors: SHA-1, that group).
const RFC = {
  N: hex(`
    EEAF0AB9 ADB38DD6 9C33F80A FA8FC5E8 60726187 75FF3C0B 9EA2314C
    9C256576 D674DF74 96EA81D3 383B4813 D692C6E0 E0D5D8E2 50B98BE4
    8E495C1D 6089DAD1 5DC7D7B4 6154D6B6 CE8EF4AD 69B15D49 82559B29
    7BCF1885 C529F566 660E57EC 68EDBC3C 05726CC0 2FD4CBF4 976EAA9A
    FD5138FE 8376435B 9FC61D2F C0EB06E3`),
  g: 2n,
  I: 'alice',
  P: 'password123',
  s: hex(`BEB25379 D1A8581E B5A72767 3A2441EE`),
  k: hex(`7556AA04 5AEF2CDD 07ABAF0F 665C3E81 8913186F`),
  x: hex(`94B7555A ABE9127C C58CCF49 93DB6CF8 4D16C124`),
  v: hex(`
    7E273DE8 696FFC4F 4E337D05 B4B375BE B0DDE156 9E8FA00A 9886D812
    9BADA1F1 822223CA 1A605B53 0E379BA4 729FDC59 F105B478 7E5186F5
    C671085A 1447B52A 48CF1970 B4FB6F84 00BBF4CE BFBB1681 52E08AB5
    EA53D15C 1AFF87B2 B9DA6E04 E058AD51 CC72BFC9 033B564E 26480D78
    E955A5E2 9E7AB245 DB2BE315 E2099AFB`),
  a: hex(`60975527 035CF2AD 1989806F 0407210B C81EDC04 E2762A56 AFD529DD DA2D4393`),
  b: hex(`E487CB59 D31AC550 471E81F0 0F6928E0 1DDA08E9 74A004F4 9E61F5D1 05284D20`),
  A: hex(`
    61D5E490 F6F1B795 47B0704C 436F523D D0E560F0 C64115BB 72557EC4
    4352E890 3211C046 92272D8B 2D1A5358 A2CF1B6E 0BFCF99F 921530EC
    8E393561 79EAE45E 42BA92AE ACED8251 71E1E8B9 AF6D9C03 E1327F44
    BE087EF0 6530E69F 66615261 EEF54073 CA11CF58 58F0EDFD FE15EFEA
    B349EF5D 76988A36 72FAC47B 0769447B`),
  B: hex(`
    BD0C6151 2C692C0C B6D041FA 01BB152D 4916A1E7 7AF46AE1 05393011
    BAF38964 DC46A067 0DD125B9 5A981652 236F99D9 B681CBF8 7837EC99
    6C6DA044 53728610 D0C6DDB5 8B318885 D7D82C7F 8DEB75CE 7BD4FBAA
    37089E6F 9C6059F3 88838E7A 00030B33 1EB76840 910440B1 B27AAEAE
    EB4012B7 D7665238 A8E3FB00 4B117B58`),
  u: hex(`CE38B959 3487DA98 554ED47D 70A7AE5F 462EF019`),
  S: hex(`
    B0DC82BA BCF30674 AE450C02 87745E79 90A3381F 63B387AA F271A10D
    233861E3 59B48220 F7C4693C 9AE12B0A 6F67809F 0876E2D0 13800D6C
    41BB59B6 D5979B5C 00A172B4 A2A5903A 0BDCAF8A 709585EB 2AFAFA8F
    3499B200 210DCC1F 10EB3394 3CD67FC8 8A2F39A4 BE5BEC4E C0A3212D
    C346D7E4 74B29EDE 8A469FFE CA686E5A`),
};

const sha1 = SRPParameters.H['SHA1'];
if (!sha1) throw new Error('tssrp6a has no SHA1');
const rfcParameters = new SRPParameters({ N: RFC.N, g: RFC.g }, sha1);
const rfcRoutines = new Rfc5054Routines(rfcParameters);
const withA = new FixedPrivateValue(rfcParameters, RFC.a);
const withB = new FixedPrivateValue(rfcParameters, RFC.b);
const rfcStored = { identity: RFC.I, salt: b64(RFC.s), verifier: b64(RFC.v, 128) };

describe('RFC 5054 Appendix B through tssrp6a with RFC routines', () => {
  it('uses the RFC 5054 1024-bit group as tssrp6a ships it', () => {
    expect(SRPParameters.PrimeGroup[1024]).toEqual({ N: RFC.N, g: RFC.g });
  });

  it('computes k, x and v', async () => {
    expect(await rfcRoutines.computeK()).toBe(RFC.k);
    const x = await rfcRoutines.computeX(RFC.I, RFC.s, RFC.P);
    expect(x).toBe(RFC.x);
    expect(rfcRoutines.computeVerifier(x)).toBe(RFC.v);
  });

  it("differs from tssrp6a's default identity hash H(P), which ignores I", async () => {
    const x = await new SRPRoutines(rfcParameters).computeX(RFC.I, RFC.s, RFC.P);
    expect(x).not.toBe(RFC.x);
  });

  it('computes A, B, u and the premaster secret S on both sides', async () => {
    expect(rfcRoutines.computeClientPublicValue(RFC.a)).toBe(RFC.A);

    const server = await new SRPServerSession(withB).step1(RFC.I, RFC.s, RFC.v);
    expect(server.B).toBe(RFC.B);
    expect(await rfcRoutines.computeU(RFC.A, RFC.B)).toBe(RFC.u);
    expect(await server.sessionKey(RFC.A)).toBe(RFC.S);

    expect(rfcRoutines.computeClientSessionKey(RFC.k, RFC.x, RFC.u, RFC.a, RFC.B)).toBe(RFC.S);
    const client = await (await new SRPClientSession(withA).step1(RFC.I, RFC.P)).step2(RFC.s, RFC.B);
    expect(client.A).toBe(RFC.A);
    expect(client.S).toBe(RFC.S);
  });

  it('gives the same B and a successful handshake through this module', async () => {
    const start = await startLogin(rfcStored, withB);
    expect(start).toEqual({ b: b64(RFC.b, 128), B: b64(RFC.B, 128) });
    expect(await clientRegistration({ identity: RFC.I, password: RFC.P, salt: rfcStored.salt }, rfcRoutines)).toBe(rfcStored.verifier);

    const client = await clientLogin({ identity: RFC.I, password: RFC.P, salt: rfcStored.salt, B: start.B }, withA);
    expect(client.A).toBe(b64(RFC.A, 128));
    const M1 = sha1Of(toBytes(RFC.A), toBytes(RFC.B), toBytes(RFC.S));
    expect(client.M1).toBe(M1.toString('base64'));
    const M2 = sha1Of(toBytes(RFC.A), M1, toBytes(RFC.S));
    expect(client.expectedM2).toBe(M2.toString('base64'));

    expect(await finishLogin({ ...rfcStored, b: start.b, A: client.A, M1: client.M1 }, rfcRoutines)).toEqual({ ok: true, M2: client.expectedM2 });
  });
});

function sha1Of(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function sha256Of(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  base %= mod;
  for (; exp > 0n; exp >>= 1n) {
    if (exp & 1n) result = (result * base) % mod;
    base = (base * base) % mod;
  }
  return result;
}

const { N } = SRP_GROUP;
const PAD = (n: bigint) => toBytes(n, 256);

async function registered(password = 'correct horse 1') {
  const stored = { identity: 'user-0001', salt: newSalt(), verifier: '' };
  stored.verifier = await clientRegistration({ identity: stored.identity, password, salt: stored.salt });
  return stored;
}

describe('SRP_GROUP and SRP_ALGORITHM', () => {
  it('is the RFC 5054 2048-bit group with SHA-256, encoded as base64 of big-endian bytes', () => {
    expect(SRP_GROUP.N).toBe(SRPParameters.PrimeGroup[2048]?.N);
    expect(N.toString(16).slice(0, 16)).toBe('ac6bdb41324a9a9b');
    expect(N.toString(2)).toHaveLength(2048);
    const n = Buffer.from(SRP_ALGORITHM.n, 'base64');
    expect(n).toHaveLength(256);
    expect(fromBytes(n)).toBe(N);
    expect(SRP_ALGORITHM).toMatchObject({ group: 'rfc5054-2048', g: 'Ag==', hash: 'SHA-256', saltBytes: 32 });
    expect(SRP_ROUTINES.parameters.primeGroup).toEqual({ N, g: 2n });
  });

  it('computes k = H(N | PAD(g)) and x = H(s | H(I ":" P)) with SHA-256', async () => {
    expect(await SRP_ROUTINES.computeK()).toBe(fromBytes(sha256Of(PAD(N), PAD(2n))));
    const salt = Buffer.from(newSalt(), 'base64');
    const x = fromBytes(sha256Of(salt, sha256Of(Buffer.from('user-0001:pässwörd', 'utf8'))));
    const v = await clientRegistration({ identity: 'user-0001', password: 'pässwörd', salt: salt.toString('base64') });
    expect(v).toBe(b64(modPow(2n, x, N), 256));
  });
});

describe('newSalt', () => {
  it('is base64 of 32 random bytes that do not start with a zero byte', () => {
    const salts = Array.from({ length: 200 }, newSalt);
    for (const salt of salts) {
      const bytes = decodeBase64Strict(salt, 32);
      expect(bytes).toHaveLength(32);
      expect(bytes![0]).not.toBe(0);
    }
    expect(new Set(salts).size).toBe(200);
  });
});

describe('parseVerifier', () => {
  it('accepts 2 and N - 1, with or without leading zero bytes', () => {
    expect(parseVerifier('Ag==')).toBe(2n);
    expect(parseVerifier(b64(2n, 256))).toBe(2n);
    expect(parseVerifier(b64(N - 1n))).toBe(N - 1n);
    expect(verifierToBase64(2n)).toBe(b64(2n, 256));
    expect(Buffer.from(verifierToBase64(N - 1n), 'base64')).toHaveLength(256);
    expect(parseVerifier(verifierToBase64(N - 1n))).toBe(N - 1n);
  });

  it.each([
    ['0', 'AA=='],
    ['0 in 256 bytes', b64(0n, 256)],
    ['1', 'AQ=='],
    ['N', b64(N)],
    ['N + 1', b64(N + 1n)],
    ['2 in 257 bytes', b64(2n, 257)],
    ['empty', ''],
    ['garbage', 'not a verifier!'],
    ['missing padding', 'Ag'],
    ['non-zero padding bits', 'Ah=='],
    ['whitespace', ' Ag=='],
    ['url-safe alphabet', `${b64(N - 1n).slice(0, -4)}-_-_`],
  ])('refuses %s with INVALID_VERIFIER', (_name, value) => {
    expect(() => parseVerifier(value)).toThrow(InvalidVerifierError);
    expect(() => parseVerifier(value)).toThrow(expect.objectContaining({ statusCode: 400, code: 'INVALID_VERIFIER' }));
  });

  it('refuses a non-string', () => {
    expect(() => parseVerifier(2 as unknown as string)).toThrow(InvalidVerifierError);
  });

  it('verifierToBase64 refuses values out of range', () => {
    for (const v of [0n, 1n, N]) expect(() => verifierToBase64(v)).toThrow(RangeError);
  });
});

describe('startLogin / finishLogin', () => {
  it('completes a handshake in the 2048-bit group, and the client checks M2', async () => {
    const stored = await registered();
    expect(parseVerifier(stored.verifier)).toBeGreaterThan(1n);
    const start = await startLogin(stored);
    expect(Buffer.from(start.B, 'base64')).toHaveLength(256);
    expect(Buffer.from(start.b, 'base64')).toHaveLength(256);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    const result = await finishLogin({ ...stored, b: start.b, A: client.A, M1: client.M1 });
    expect(result).toEqual({ ok: true, M2: client.expectedM2 });
  });

  it('computes u, S, M1 and M2 exactly as documented', async () => {
    const stored = await registered();
    const start = await startLogin(stored);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    const [A, B, b, v] = [client.A, start.B, start.b, stored.verifier].map((x) => fromBytes(Buffer.from(x, 'base64'))) as [bigint, bigint, bigint, bigint];
    expect(B).toBe((fromBytes(sha256Of(PAD(N), PAD(2n))) * v + modPow(2n, b, N)) % N);
    const u = fromBytes(sha256Of(PAD(A), PAD(B)));
    const S = modPow(A * modPow(v, u, N), b, N);
    const M1 = sha256Of(toBytes(A), toBytes(B), toBytes(S));
    expect(client.M1).toBe(M1.toString('base64'));
    // M1 is hashed as a number (minimal encoding), so a digest that starts with a zero byte
    // (1 login in 256) goes into M2 without it.
    expect(client.expectedM2).toBe(sha256Of(toBytes(A), toBytes(fromBytes(M1)), toBytes(S)).toString('base64'));
  });

  it('gives BAD_PROOF for a wrong password, another identity, a changed M1 or a replay', async () => {
    const stored = await registered();
    const start = await startLogin(stored);
    const login = (password: string, identity = stored.identity, B = start.B) => clientLogin({ identity, password, salt: stored.salt, B });
    const bad = { ok: false, reason: 'BAD_PROOF' };

    const wrong = await login('correct horse 2');
    expect(await finishLogin({ ...stored, b: start.b, A: wrong.A, M1: wrong.M1 })).toEqual(bad);

    const other = await login('correct horse 1', 'user-0002');
    expect(await finishLogin({ ...stored, b: start.b, A: other.A, M1: other.M1 })).toEqual(bad);

    const good = await login('correct horse 1');
    const flipped = Buffer.from(good.M1, 'base64');
    flipped[31]! ^= 1;
    expect(await finishLogin({ ...stored, b: start.b, A: good.A, M1: flipped.toString('base64') })).toEqual(bad);
    expect(await finishLogin({ ...stored, b: start.b, A: good.A, M1: good.M1 })).toMatchObject({ ok: true });

    const again = await startLogin(stored);
    expect(await finishLogin({ ...stored, b: again.b, A: good.A, M1: good.M1 })).toEqual(bad);
  });

  it.each([
    ['0 (one byte)', 'AA=='],
    ['0 (256 bytes)', b64(0n, 256)],
    ['N', b64(N)],
    ['2N', b64(2n * N)],
    ['5N', b64(5n * N)],
  ])('gives A_MOD_N_ZERO for A = %s', async (_name, A) => {
    const stored = await registered();
    const start = await startLogin(stored);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    expect(await finishLogin({ ...stored, b: start.b, A, M1: client.M1 })).toEqual({ ok: false, reason: 'A_MOD_N_ZERO' });
  });

  it('gives U_ZERO when u = 0 (forced: a real u = 0 needs a SHA-256 preimage)', async () => {
    class ZeroU extends Rfc5054Routines {
      override async computeU(): Promise<bigint> {
        return 0n;
      }
    }
    const zeroU = new ZeroU(SRP_ROUTINES.parameters);
    const stored = await registered();
    const start = await startLogin(stored, zeroU);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    expect(await finishLogin({ ...stored, b: start.b, A: client.A, M1: client.M1 }, zeroU)).toEqual({ ok: false, reason: 'U_ZERO' });
    await expect(clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B }, zeroU)).rejects.toThrow(/u = 0/);
  });

  it('abortReason checks A mod N before u', () => {
    expect(abortReason(0n, 5n)).toBe('A_MOD_N_ZERO');
    expect(abortReason(3n * N, 0n)).toBe('A_MOD_N_ZERO');
    expect(abortReason(2n, 0n)).toBe('U_ZERO');
    expect(abortReason(N - 1n, 1n)).toBeUndefined();
    expect(abortReason(7n, 0n, 7n)).toBe('A_MOD_N_ZERO');
  });

  it('gives MALFORMED for bad base64, an unreduced A, an over-long A and an M1 of the wrong length', async () => {
    const stored = await registered();
    const start = await startLogin(stored);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    const A = fromBytes(Buffer.from(client.A, 'base64'));
    const M1 = Buffer.from(client.M1, 'base64');
    const cases: { A: string; M1: string }[] = [
      { A: '', M1: client.M1 },
      { A: 'not base64', M1: client.M1 },
      { A: client.A.slice(0, -1), M1: client.M1 },
      { A: ` ${client.A}`, M1: client.M1 },
      { A: `-${client.A.slice(1)}`, M1: client.M1 },
      { A: b64(A + N), M1: client.M1 },
      { A: b64(N + 1n), M1: client.M1 },
      { A: b64(A, 513), M1: client.M1 },
      { A: client.A, M1: '' },
      { A: client.A, M1: M1.subarray(1).toString('base64') },
      { A: client.A, M1: Buffer.concat([M1, Buffer.of(0)]).toString('base64') },
      { A: client.A, M1: `${client.M1.slice(0, -2)}B=` },
      { A: client.A as unknown as string, M1: 42 as unknown as string },
    ];
    for (const c of cases) {
      expect(await finishLogin({ ...stored, b: start.b, ...c }), JSON.stringify(c).slice(0, 80)).toEqual({ ok: false, reason: 'MALFORMED' });
    }
    // A with leading zero bytes is still the same number, and accepted.
    expect(await finishLogin({ ...stored, b: start.b, A: b64(A, 300), M1: client.M1 })).toMatchObject({ ok: true });
  });

  it('throws on a corrupt b (server state, not client input)', async () => {
    const stored = await registered();
    const start = await startLogin(stored);
    const client = await clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B: start.B });
    for (const b of ['', 'AQ==', b64(0n, 256), b64(N), 'garbage']) {
      await expect(finishLogin({ ...stored, b, A: client.A, M1: client.M1 })).rejects.toThrow(/corrupt/);
    }
  });
});

describe('clientRegistration / clientLogin', () => {
  it('refuses a salt with a leading zero byte, which tssrp6a would hash without it', async () => {
    const salt = bytesB64([0, ...Array.from({ length: 31 }, () => 7)]);
    await expect(clientRegistration({ identity: 'user-0001', password: 'p', salt })).rejects.toThrow(/leading zero/);
  });

  it('aborts when B mod N = 0', async () => {
    const stored = await registered();
    for (const B of ['AA==', b64(N)]) {
      await expect(clientLogin({ identity: stored.identity, password: 'correct horse 1', salt: stored.salt, B })).rejects.toThrow(/B mod N/);
    }
  });

  it('refuses an empty identity or password', async () => {
    const salt = newSalt();
    await expect(clientRegistration({ identity: ' ', password: 'p', salt })).rejects.toThrow(/identity/);
    await expect(clientRegistration({ identity: 'u', password: '', salt })).rejects.toThrow(/password/);
  });
});
