import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, protoKeyPath, readJson } from '../../functions/shared/json.js';

/** `levels` nested objects and arrays, as an attacker writes them: `{"a":[{"a":[...]}]}`. */
function nested(levels: number, inner = '1'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    open += i % 2 ? '[' : '{"a":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return open + inner + close;
}

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ s: '[[[[{{{{"\\"[[[' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ s: 'a\\' }), 1)).toBe(false);
  });

  it('agrees with the depth of any JSON value', () => {
    const depth = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat({ max: 7 }), (v, max) => {
        expect(nestsDeeperThan(JSON.stringify(v), max)).toBe(depth(v) > max);
      }),
    );
  });
});

describe('readJson', () => {
  it('reads JSON nested up to the limit', () => {
    expect(readJson(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
  });

  it('rejects when the text nests one level past the limit, before parsing it', () => {
    expect(readJson(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ ok: false, problem: { kind: 'depth' } });
    // What the attack run sent: 10 KB nested about 5,050 deep, and far deeper ones.
    expect(readJson(nested(5_050))).toMatchObject({ ok: false, problem: { kind: 'depth' } });
    expect(readJson('['.repeat(1_000_000))).toMatchObject({ ok: false, problem: { kind: 'depth' } });
  });

  it('rejects when the text is not JSON, or has a __proto__ key', () => {
    expect(readJson('{"a":')).toMatchObject({ ok: false, problem: { kind: 'syntax' } });
    expect(readJson('{"a":[{"__proto__":{}}]}')).toEqual({ ok: false, problem: { kind: 'proto', message: expect.any(String), path: ['a', '0', '__proto__'] } });
  });
});

describe('protoKeyPath', () => {
  it('finds a __proto__ key at any depth, and nothing else', () => {
    expect(protoKeyPath(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toEqual(['a', '0', 'b', '__proto__']);
    expect(protoKeyPath(JSON.parse('{"constructor":{"prototype":1}}'))).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }), (v, path) => {
        if (!JSON.stringify(v).includes('"__proto__":')) expect(protoKeyPath(v)).toBeUndefined();
        // The same value with a __proto__ key put in at a path of objects, as JSON.parse makes it.
        const json = path.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, `{"__proto__":${JSON.stringify(v)}}`);
        expect(protoKeyPath(JSON.parse(json))).toEqual([...path, '__proto__']);
      }),
    );
  });

  it('walks a value nested 100,000 deep without recursion', () => {
    let v: unknown = JSON.parse('{"__proto__":1}');
    for (let i = 0; i < 100_000; i++) v = i % 2 ? [v] : { k: v };
    expect(protoKeyPath(v)?.length).toBe(100_001);
  });
});
