import { describe, expect, it } from 'vitest';
import { tenantPatternMatcher, tenantPatternProblem } from '../../functions/shared/tenant-regex.js';

describe('tenantPatternProblem', () => {
  it('takes what both JavaScript and RE2 run', async () => {
    for (const ok of ['^[A-Z]{2}\\d{6}$', '(a+)+b', '\\p{Lu}\\p{Ll}+', '(?<year>\\d{4})-\\d{2}', 'colou?r|grey']) {
      expect(await tenantPatternProblem(ok), ok).toBeUndefined();
    }
  });

  it('refuses what RE2 cannot run in linear time, and what JavaScript cannot parse', async () => {
    expect(await tenantPatternProblem('(?=a)b')).toContain('RE2');
    expect(await tenantPatternProblem('(?<!x)y')).toContain('RE2');
    expect(await tenantPatternProblem('(a)\\1')).toContain('RE2');
    expect(await tenantPatternProblem('(unclosed')).toContain('not a valid regular expression');
    // RE2-only syntax the end user's browser could not run.
    expect(await tenantPatternProblem('(?P<name>a)')).toContain('not a valid regular expression');
  });
});

describe('tenantPatternMatcher', () => {
  it('matches the whole input, as an HTML pattern attribute does', async () => {
    const matches = await tenantPatternMatcher();
    expect(matches('[0-9]{3}', '123')).toBe(true);
    expect(matches('[0-9]{3}', '1234')).toBe(false);
    expect(matches('a|b', 'ab')).toBe(false);
    expect(matches('\\p{Lu}\\p{Ll}+', 'Ärger')).toBe(true);
  });

  it('answers a catastrophic pattern on a long input (a backtracking engine would never end)', async () => {
    const matches = await tenantPatternMatcher();
    expect(matches('(a+)+b', `${'a'.repeat(100_000)}c`)).toBe(false);
    expect(matches('(a+)+b', `${'a'.repeat(100_000)}b`)).toBe(true);
  });
});
