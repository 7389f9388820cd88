import type { ItemKey } from './keys.js';

/** The attributes an item carries for the table, not for its record. */
const TABLE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'itemType'] as const;

/** An item's keys: the table's, and the creation-time index's where the item is listed by it. */
export type ItemKeys = ItemKey & { GSI1PK?: string; GSI1SK?: string };

export type Item = Record<string, unknown>;

/**
 * How one kind of record is kept in the single table: as its attributes beside its keys and its
 * `itemType`. The one place a stored item becomes a typed record: a read checks the item type
 * (an item of another kind under the same key is absent) and drops the table's attributes.
 */
export interface ItemCodec<R extends object> {
  readonly itemType: string;
  encode(record: R, key: ItemKeys): Item;
  /** The record, or undefined when there is no item or it is of another type. */
  decode(item: Item | undefined): R | undefined;
  /** The records among `items` of this type, in their order. */
  decodeAll(items: readonly Item[]): R[];
}

export function itemCodec<R extends object>(itemType: string): ItemCodec<R> {
  const codec: ItemCodec<R> = {
    itemType,
    encode: (record, key) => ({ ...key, itemType, ...record }),
    decode(item) {
      if (!item || item.itemType !== itemType) return undefined;
      const record: Item = { ...item };
      for (const attribute of TABLE_ATTRIBUTES) delete record[attribute];
      // The only widening in the store layer: what this codec encoded, it decodes.
      return record as R;
    },
    decodeAll: (items) => items.flatMap((item) => codec.decode(item) ?? []),
  };
  return codec;
}

/**
 * A record with a TTL (`expiresAt`, epoch seconds) as absent once it has expired: DynamoDB's TTL
 * sweep may take a while to delete it, and nobody may use it meanwhile.
 */
export function unexpired<R extends { expiresAt: number }>(record: R | undefined, now: Date): R | undefined {
  return record && record.expiresAt * 1000 > now.getTime() ? record : undefined;
}
