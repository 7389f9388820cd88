import { getCountryCodeForRegionCode, getSupportedRegionCodes } from 'awesome-phonenumber';
import { describe, expect, it } from 'vitest';
import { CALLING_CODE_REGIONS, callingCodeOf } from '../../functions/journey/calling-codes.js';

// The page's phone hint reads a table so that its bundle carries no libphonenumber; the table
// must say what the library (which judges the submitted number) says.
describe('callingCodeOf', () => {
  it('gives every region libphonenumber supports the code the installed library gives it', () => {
    const regions = getSupportedRegionCodes();
    expect([...CALLING_CODE_REGIONS].sort()).toEqual([...regions].sort());
    expect(Object.fromEntries(regions.map((r) => [r, callingCodeOf(r)]))).toEqual(Object.fromEntries(regions.map((r) => [r, getCountryCodeForRegionCode(r)])));
  });

  it('reads a region in any case', () => {
    expect(callingCodeOf('de')).toBe(49);
    expect(callingCodeOf('Gb')).toBe(44);
  });

  it('answers 0 when the region is unknown, as the library does', () => {
    for (const region of ['ZZ', 'XX', '001', 'CONSTRUCTOR', '__PROTO__', '']) {
      expect(callingCodeOf(region), region).toBe(getCountryCodeForRegionCode(region));
      expect(callingCodeOf(region), region).toBe(0);
    }
  });
});
