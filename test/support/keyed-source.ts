import type { KeyedSource, Row } from '../../functions/shared/keyed-list.js';

/**
 * A list's key range in memory, for fakes: `rows()` gives the list's rows now (each with its
 * sort key as `at`), which are read in sort-key order as DynamoDB would.
 */
export function memorySource<R>(rows: () => Row<R>[], prefix: string): KeyedSource<R> {
  const sorted = () => rows().sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return {
    read: async (o) => {
      const ordered = o.descending ? sorted().reverse() : sorted();
      const from = o.after === undefined ? 0 : ordered.filter((r) => (o.descending ? r.at >= o.after! : r.at <= o.after!)).length;
      return { rows: ordered.slice(from, from + o.limit), done: from + o.limit >= ordered.length };
    },
    isPosition: (at) => at.startsWith(prefix),
    count: async (cap) => ({ count: Math.min(rows().length, cap), capped: rows().length > cap }),
  };
}
