import { describe, expect, it } from 'vitest';
import { lockSeconds, PASSCODE_LOCKOUT } from '../../functions/identity-store/passcodes/passcodes.js';

describe('lockSeconds', () => {
  it('locks from the fifth wrong passcode in a row, doubling, at most a day', () => {
    expect([1, 2, 3, 4].map(lockSeconds)).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8].map(lockSeconds)).toEqual([60, 120, 240, 480]);
    expect(lockSeconds(16)).toBe(86_400);
    expect(lockSeconds(1000)).toBe(PASSCODE_LOCKOUT.maxLockSeconds);
    // About 25 guesses fit in the first day: far under ASVS's 100 an hour.
    let guesses = 0;
    let elapsed = 0;
    for (let n = 1; elapsed < 86_400; n++) {
      guesses++;
      elapsed += lockSeconds(n);
    }
    expect(guesses).toBeLessThan(30);
  });
});
