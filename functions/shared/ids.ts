import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A 26-character id in Crockford's base 32 (the length the spec gives the SRP session id
 * `parameters.i`): 130 bits, of which the first two are zero, so 128 random bits. Used where an
 * id is also a capability (a registration session), so it must not be guessable.
 */
export function newId26(): string {
  const bytes = randomBytes(16);
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return out;
}

export const ID26_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
