import fc from 'fast-check';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { own, protoKeyPath } from '../../functions/shared/own.js';

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

describe('protoKeyPath', () => {
  it('finds a __proto__ key at any depth, and nothing else', () => {
    expect(protoKeyPath(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toBe('a.0.b.__proto__');
    expect(protoKeyPath(JSON.parse('{"constructor":{"prototype":1}}'))).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }), (v, path) => {
        if (!JSON.stringify(v).includes('"__proto__":')) expect(protoKeyPath(v)).toBeUndefined();
        // The same value with a __proto__ key put in at a path of objects, as JSON.parse makes it.
        const json = path.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, `{"__proto__":${JSON.stringify(v)}}`);
        expect(protoKeyPath(JSON.parse(json))).toBeDefined();
      }),
    );
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
