import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likePattern, parseSort, toPage } from '../../functions/shared/page.js';

describe('likePattern', () => {
  it('reads % and _ as SQL LIKE does, case-insensitively, with \\ escapes', () => {
    expect(likePattern('%').test('anything')).toBe(true);
    expect(likePattern('%').test('')).toBe(true);
    expect(likePattern('a_c').test('ABC')).toBe(true);
    expect(likePattern('a_c').test('abbc')).toBe(false);
    expect(likePattern('100\\%').test('100%')).toBe(true);
    expect(likePattern('100\\%').test('1000')).toBe(false);
    expect(likePattern('a.b*').test('axb')).toBe(false);
    expect(likePattern('(x)[y]').test('(x)[y]')).toBe(true);
  });
});

describe('toPage', () => {
  it('describes the edges of a page set', () => {
    const items = [1, 2, 3, 4, 5];
    expect(toPage(items, 0, 2, false)).toMatchObject({ content: [1, 2], totalPages: 3, first: true, last: false });
    expect(toPage(items, 2, 2, false)).toMatchObject({ content: [5], first: false, last: true, numberOfElements: 1 });
    expect(toPage([], 0, 10, false)).toMatchObject({ empty: true, totalPages: 0, first: true, last: true });
    expect(toPage(items, 9, 2, true).pageable).toEqual({
      sort: { sorted: true, unsorted: false, empty: false }, unpaged: false, paged: true, pageSize: 2, pageNumber: 9, offset: 18,
    });
  });
});

describe('parseSort', () => {
  it('takes property with optional direction and reports the rest', () => {
    const { orders, errors } = parseSort(['name', 'createdDtm,DESC', 'x,asc', 'name,up', 'name,asc,more'], ['name', 'createdDtm']);
    expect(orders).toEqual([{ property: 'name', direction: 'asc' }, { property: 'createdDtm', direction: 'desc' }]);
    expect(errors).toHaveLength(3);
  });
});

describe('likePattern without backtracking', () => {
  it('matches as SQL LIKE does, at every position a segment can take', () => {
    const cases: [string, string, boolean][] = [
      ['%a%a%a%a%a%b', 'a'.repeat(59) + 'b', true],
      ['%a%a%a%a%a%b', 'a'.repeat(60), false],
      ['a%', 'A', true],
      ['%a', 'ba', true],
      ['a%a', 'a', false],
      ['a%a', 'aa', true],
      ['%ab%ab%', 'xabyab', true],
      ['%ab%ab%', 'xaby', false],
      ['_%_', 'ab', true],
      ['_%_', 'a', false],
      ['%_b_%', 'abc', true],
      ['%%', '', true],
      ['', '', true],
      ['', 'a', false],
      ['ÉCOLE', 'école', true],
      ['😀_', '😀x', true],
      ['\\_x', '_x', true],
      ['\\_x', 'ax', false],
      ['a\\', 'a\\', true],
    ];
    for (const [pattern, value, expected] of cases) expect(likePattern(pattern).test(value), `${pattern} ~ ${value}`).toBe(expected);
  });

  it('agrees with the regex translation on random patterns and names', () => {
    const pattern = fc.array(fc.constantFrom('a', 'b', '%', '_'), { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
    const value = fc.array(fc.constantFrom('a', 'b'), { maxLength: 10 }).map((a) => a.join(''));
    fc.assert(
      fc.property(pattern, value, (p, v) => {
        const re = new RegExp(`^${[...p].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c)).join('')}$`, 's');
        expect(likePattern(p).test(v), `${p} ~ ${v}`).toBe(re.test(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers the pattern that made the regex backtrack on a long name (the bench prints the times)', () => {
    // 60 characters took 1.6 s as a backtracking regex, so 60,000 would never end (the test times out).
    expect(likePattern('%a%a%a%a%a%b').test('a'.repeat(60_000))).toBe(false);
  });
});
