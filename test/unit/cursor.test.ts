import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type CursorBinding } from '../../functions/shared/cursor.js';

const binding: CursorBinding = { tenantId: 'acme', list: 'apiKeys', query: ['%', []] };
const anywhere = () => true;
const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as { code: string; details: { location: string }[] }).code;
  }
  return 'accepted';
};

describe('cursors', () => {
  it('carry a position and, where a list counts, its count', () => {
    const c = encodeCursor(binding, { after: 'APIKEYC#2026-01-01T00:00:00.000Z#k', total: 42, capped: true });
    expect(c).toMatch(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(binding, c, anywhere)).toEqual({ after: 'APIKEYC#2026-01-01T00:00:00.000Z#k', total: 42, capped: true });
    expect(decodeCursor(binding, encodeCursor(binding, { after: 'x' }), anywhere)).toEqual({ after: 'x' });
  });

  it('are refused with INVALID_CURSOR in another tenant, list, scope or query', () => {
    const c = encodeCursor(binding, { after: 'x' });
    for (const other of [
      { ...binding, tenantId: 'other' },
      { ...binding, list: 'processTokens' },
      { ...binding, scope: ['store', 'user'] },
      { ...binding, query: ['a%', []] },
    ]) {
      expect(code(() => decodeCursor(other, c, anywhere))).toBe('INVALID_CURSOR');
    }
  });

  it('are refused when changed by hand, cut short, or pointing outside the list', () => {
    const c = encodeCursor(binding, { after: 'APIKEYC#x', total: 3, capped: false });
    const [v, payload, check] = c.split('.') as [string, string, string];
    const forged = `${v}.${Buffer.from(JSON.stringify(['APIKEYC#y', 3, 0])).toString('base64url')}.${check}`;
    for (const bad of [forged, c.slice(0, -1), `${v}.${payload}`, 'c2.e30.x', '', '...', 'c1.!!.x']) {
      expect(code(() => decodeCursor(binding, bad, anywhere))).toBe('INVALID_CURSOR');
    }
    // A cursor whose check holds but whose position the store would not take.
    expect(code(() => decodeCursor(binding, c, (at) => at.startsWith('PTOKENC#')))).toBe('INVALID_CURSOR');
  });
});
