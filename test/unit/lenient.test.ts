import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from '../../functions/shared/zod.js';
import { lenient } from '../../functions/shared/lenient.js';
import { ProcessTokenCreateSchema } from '../../functions/process-manager/tokens/token-schemas.js';
import { ApiKeyCreateSchema } from '../../functions/api-keys/schemas.js';

const read = (schema: z.ZodMiniType, value: unknown) => z.safeParse(schema, lenient(schema, value));

describe('reading requests leniently', () => {
  const schema = z.object({
    count: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10))),
    on: z.optional(z.boolean()),
    name: z.optional(z.string().check(z.maxLength(5))),
    note: z.optional(z.nullable(z.string())),
    tags: z.optional(z.array(z.number())),
    params: z.optional(z.record(z.string(), z.string())),
    version: z.optional(z.union([z.string().check(z.regex(/^\d+$/)), z.number()])),
  });

  it.each([
    ['a number as its string', { count: '2' }, { count: 2 }],
    ['a boolean as its string', { on: 'false' }, { on: false }],
    ['a number where a string is taken', { name: 42 }, { name: '42' }],
    ['a boolean where a string is taken', { name: true }, { name: 'true' }],
    ['null for an optional field', { count: null, name: null }, {}],
    ['null kept where null is a value', { note: null }, { note: null }],
    ['numbers as strings inside arrays', { tags: ['1', 2] }, { tags: [1, 2] }],
    ['integers and booleans in a map of strings', { params: { age: 42, ok: false } }, { params: { age: '42', ok: 'false' } }],
    ['a union member taken as it is', { version: 2 }, { version: 2 }],
    ['an unknown field, dropped', { colour: 'red', count: 1 }, { count: 1 }],
  ])('takes %s', (_what, input, output) => {
    const parsed = read(schema, input);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual(output);
  });

  it.each([
    ['a string that is no plain decimal', { count: '0x2' }],
    ['a number with spaces', { count: ' 2' }],
    ['an exponent', { count: '1e1' }],
    ['Infinity', { count: 'Infinity' }],
    ['a number out of its limits, sent as a string', { count: '11' }],
    ['a fraction where an integer is taken', { count: '1.5' }],
    ['an object where a string is taken', { name: { a: 1 } }],
    ['an array where a string is taken', { name: ['a'] }],
    ['a string too long once coerced', { name: 123456 }],
    ['a boolean spelt otherwise', { on: 'yes' }],
    ['null in a map of strings', { params: { a: null } }],
  ])('still refuses %s', (_what, input) => {
    expect(read(schema, input).success).toBe(false);
  });

  it('keeps map keys as data', () => {
    const parsed = read(schema, JSON.parse('{"params":{"constructor":1,"prototype":true,"toString":"x"}}'));
    expect(parsed.data).toEqual({ params: { constructor: '1', prototype: 'true', toString: 'x' } });
  });

  it('takes what the family sends for a process token', () => {
    const parsed = read(ProcessTokenCreateSchema, {
      name: 'n',
      type: 'MULTI_USE_COUNT_LIMITED',
      maxCount: '1',
      processDefnName: 'd',
      processDefnVersion: '2',
      description: null,
      uiUrl: null,
      parameters: { age: 42, vip: true, name: 'x', middleName: null },
      status: 'ACTIVE',
      somethingNew: { a: 1 },
    });
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual({
      name: 'n',
      type: 'MULTI_USE_COUNT_LIMITED',
      maxCount: 1,
      processDefnName: 'd',
      processDefnVersion: '2',
      parameters: { age: '42', vip: 'true', name: 'x' },
      status: 'ACTIVE',
    });
  });

  it('reads null for a nullable field as null, not absent (an API key without expiry)', () => {
    const parsed = read(ApiKeyCreateSchema, { name: 'k', expiringDtm: null });
    expect(parsed.data).toMatchObject({ name: 'k', expiringDtm: null });
  });

  it('never makes a value valid that its schema refuses once coerced, nor throws (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('count', 'on', 'name', 'note', 'tags', 'params', 'version', 'x'), json), (input) => {
        const brought = lenient(schema, input);
        const parsed = z.safeParse(schema, brought);
        if (parsed.success) {
          // Whatever passes is a value of the schema's own types.
          const d = parsed.data as Record<string, unknown>;
          if (d.count !== undefined) expect(Number.isInteger(d.count)).toBe(true);
          if (d.name !== undefined) expect(typeof d.name).toBe('string');
          if (d.on !== undefined) expect(typeof d.on).toBe('boolean');
        }
      }),
      { numRuns: 500 },
    );
  });
});
