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
