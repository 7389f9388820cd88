import fc from 'fast-check';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { own } from '../../functions/shared/own.js';

/** Keys a tenant or an end user may choose, with the ones Object.prototype answers to among them. */
const userKey = fc.oneof(fc.constantFrom('constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'), fc.string({ minLength: 1, maxLength: 12 }));

describe('own', () => {
  it('finds exactly the keys a map was given, whatever their names', () => {
    fc.assert(
      fc.property(fc.dictionary(userKey.filter((k) => k !== '__proto__'), fc.string()), userKey, (map, key) => {
        expect(own(map, key)).toBe(Object.hasOwn(map, key) ? map[key] : undefined);
      }),
    );
    expect(own({}, 'constructor')).toBeUndefined();
    expect(own(undefined, 'toString')).toBeUndefined();
  });
});

describe('the DynamoDB marshaller with the store client options', () => {
  it('keeps maps whose keys name Object.prototype members', () => {
    fc.assert(
      fc.property(fc.dictionary(userKey.filter((k) => k !== '__proto__'), fc.string()), (map) => {
        const item = { parameters: map };
        expect(unmarshall(marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true }))).toEqual(item);
      }),
    );
  });
});
