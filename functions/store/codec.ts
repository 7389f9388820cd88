import type { ItemKey } from './keys.js';

/**
 * An item's keys: the table's, the creation-time index's where the item is listed by it, and
 * the open-instance index's while an instance has no final status, the due index's while a
 * webhook delivery is PENDING.
 */
export type ItemKeys = ItemKey & { GSI1PK?: string; GSI1SK?: string; GSI2PK?: string; GSI2SK?: string; GSI3PK?: string; GSI3SK?: string };

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
  const decode = (item: Item | undefined): R | undefined => {
    if (item?.itemType !== itemType) return undefined;
    // The table's attributes go; the rest is the record. The only widening in the store layer:
    // what this codec encoded, it decodes.
    const { PK: _pk, SK: _sk, GSI1PK: _gpk, GSI1SK: _gsk, GSI2PK: _opk, GSI2SK: _osk, GSI3PK: _dpk, GSI3SK: _dsk, itemType: _type, ...record } = item;
    return record as R;
  };
  return {
    itemType,
    encode: (record, key) => ({ ...key, itemType, ...record }),
    decode,
    decodeAll: (items) => items.flatMap((item) => decode(item) ?? []),
  };
}

/**
 * A record with a TTL (`expiresAt`, epoch seconds) as absent once it has expired: DynamoDB's TTL
 * sweep may take a while to delete it, and nobody may use it meanwhile.
 */
export function unexpired<R extends { expiresAt: number }>(record: R | undefined, now: Date): R | undefined {
  return record && record.expiresAt * 1000 > now.getTime() ? record : undefined;
}
