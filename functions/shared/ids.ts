import { randomBytes } from 'node:crypto';

export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `n` as `length` characters of Crockford's base 32, most significant first. */
export function crockford(n: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return out;
}

/**
 * A 26-character id in Crockford's base 32 (the length the spec gives the SRP session id
 * `parameters.i`): 130 bits, of which the first two are zero, so 128 random bits. Used where an
 * id is also a capability (a registration session), so it must not be guessable.
 */
export function newId26(): string {
  return crockford(BigInt(`0x${randomBytes(16).toString('hex')}`), 26);
}

export const ID26_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
