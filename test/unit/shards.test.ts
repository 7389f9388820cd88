import { describe, expect, it } from 'vitest';
import { OUTBOX_SHARDS, orderedMerge, shardLabel, shardOf, type OrderedSource } from '../../functions/store/shards.js';
import { keys } from '../../functions/store/keys.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

describe('shardOf', () => {
  it('gives a value the same shard every time (the FNV-1a values other implementations give)', () => {
    // 32-bit FNV-1a of "a" is 0xe40c292c and of "foobar" 0xbf9cf968 (the published test vectors).
    expect(shardOf('a', 2 ** 31)).toBe(0xe40c292c % 2 ** 31);
    expect(shardOf('foobar', 1000)).toBe(0xbf9cf968 % 1000);
    for (let n = 0; n < 50; n++) expect(shardOf(uuid(n), OUTBOX_SHARDS)).toBe(shardOf(uuid(n), OUTBOX_SHARDS));
  });

  it('spreads instance ids over every shard, none with more than twice its share', () => {
    const counts = new Array<number>(OUTBOX_SHARDS).fill(0);
    // Ids that differ only in their last characters, as sequential ids would.
    for (let n = 0; n < 16_000; n++) counts[shardOf(uuid(n), OUTBOX_SHARDS)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(500);
    expect(Math.max(...counts)).toBeLessThan(2000);
    const random = new Array<number>(OUTBOX_SHARDS).fill(0);
    for (let n = 0; n < 16_000; n++) random[shardOf(crypto.randomUUID(), OUTBOX_SHARDS)]!++;
    expect(Math.max(...random)).toBeLessThan(1300);
  });

  it('refuses a shard count that is not a positive integer, and labels only two-digit shards', () => {
    expect(() => shardOf('x', 0)).toThrow();
    expect(() => shardOf('x', 1.5)).toThrow();
    expect(shardLabel(7)).toBe('07');
    expect(() => shardLabel(100)).toThrow();
  });
});

describe('keys.outboxEvent', () => {
  it('puts a subject\'s events in one partition that still ends in #EVENTS (the IAM grants\' pattern), and names the tenant', () => {
    const a = keys.outboxEvent('acme', '2026-01-01T00:00:00.000Z', 'evt_1', uuid(1));
    const b = keys.outboxEvent('acme', '2026-01-02T00:00:00.000Z', 'evt_2', uuid(1));
    expect(a.PK).toBe(b.PK);
    expect(a.PK).toMatch(/^TNT#acme#S\d{2}#EVENTS$/);
    expect(keys.parseOutboxEvent(a)).toEqual({ tenantId: 'acme' });
    expect(keys.parseOutboxEvent(keys.legacyOutboxEvent('acme', '2026-01-01T00:00:00.000Z', 'evt_1'))).toEqual({ tenantId: 'acme' });
    expect(keys.parseOutboxEvent(keys.instance('acme', uuid(1)))).toBeUndefined();
    expect(new Set(keys.outboxPartitions('acme')).size).toBe(OUTBOX_SHARDS + 1);
  });
});

/** A source over a sorted array, `page` items a call, counting its calls. */
function source(items: string[], page: number): OrderedSource<string> & { calls: number } {
  let at = 0;
  return {
    calls: 0,
    async next() {
      this.calls++;
      const out = items.slice(at, at + page);
      at += page;
      return { items: out, done: at >= items.length };
    },
  };
}

describe('orderedMerge', () => {
  it('merges sources into one order and goes on where it stopped', async () => {
    const merged = orderedMerge([source(['a1', 'c1', 'e1'], 2), source(['b1', 'd1'], 1), source([], 5)], (s) => s);
    expect(await merged.take(3)).toEqual({ items: ['a1', 'b1', 'c1'], more: true });
    expect(await merged.take(5)).toEqual({ items: ['d1', 'e1'], more: false });
  });

  it('merges in descending order', async () => {
    const merged = orderedMerge([source(['e', 'c', 'a'], 1), source(['d', 'b'], 1)], (s) => s, true);
    expect((await merged.take(10)).items).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('reads a source only when its next item decides the order', async () => {
    const big = source(['b', 'c', 'd', 'e', 'f', 'g'], 2);
    const small = source(['a', 'z'], 1);
    await orderedMerge([big, small], (s) => s).take(2);
    // `a`, then `b`; the second page of `big` (d, e) was never needed.
    expect(big.calls).toBe(1);
  });
});
