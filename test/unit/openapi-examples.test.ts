import { describe, expect, it } from 'vitest';
import * as z from '../../functions/shared/zod.js';
import { routeList } from '../../functions/routes.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi-document.js';
import { responseProblem } from '../../functions/http/wrapper.js';
import { exampleOf } from '../../functions/platform/openapi-examples.js';
import { EVENT_SCHEMAS, EVENT_TYPES } from '../../functions/events/catalogue.js';

type Json = Record<string, any>;
const doc = buildOpenApiDocument(routeList) as Json;
const operation = (path: string, method: string): Json => doc.paths[path][method.toLowerCase()];
const exampleValue = (content: Json | undefined): unknown => {
  const examples = Object.values((content?.examples ?? {}) as Record<string, { value: unknown }>);
  return examples[0]?.value;
};
const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
/** How a parameter's example travels: as text in the URL or a header. */
const asSent = (v: unknown): unknown => (Array.isArray(v) ? v.map(String) : String(v));

describe('the examples of the OpenAPI document', () => {
  it('give every operation that takes a JSON body a request example its schema accepts', () => {
    const wrong: string[] = [];
    for (const route of routeList.filter((r) => r.request.body)) {
      const value = exampleValue(operation(route.path, route.method).requestBody.content['application/json']);
      if (value === undefined) wrong.push(`${route.operationId}: no example`);
      else wrong.push(...issues(z.safeParse(route.request.body!, value)).map((i) => `${route.operationId}: ${i}`));
    }
    expect(wrong).toEqual([]);
  });

  it('give every operation with a JSON answer an example of its main answer that the route declares', () => {
    const wrong: string[] = [];
    for (const route of routeList) {
      const op = operation(route.path, route.method);
      const [status] = Object.entries(route.responses)
        .filter(([s, res]) => Number(s) < 300 && res.schema && !res.contentType)
        .map(([s]) => Number(s))
        .sort((a, b) => a - b);
      if (status === undefined) continue;
      const value = exampleValue(op.responses[status].content['application/json']);
      if (value === undefined) wrong.push(`${route.operationId}: no example`);
      else {
        const problem = responseProblem(route, { status, body: value });
        if (problem) wrong.push(`${route.operationId}: ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('give every path parameter an example its schema accepts, and the shown query parameters too', () => {
    const wrong: string[] = [];
    for (const route of routeList) {
      const params = (operation(route.path, route.method).parameters ?? []) as Json[];
      for (const where of ['path', 'query'] as const) {
        const schema = route.request[where];
        if (!schema) continue;
        const given = Object.fromEntries(params.filter((p) => p.in === where && p.example !== undefined).map((p) => [p.name, asSent(p.example)]));
        if (where === 'path') expect(Object.keys(given).sort(), route.operationId).toEqual(params.filter((p) => p.in === 'path').map((p) => p.name).sort());
        wrong.push(...issues(z.safeParse(schema, given)).map((i) => `${route.operationId} ${where}: ${i}`));
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the examples of the events (the document\'s webhooks)', () => {
  it('give every event a payload its schema accepts', () => {
    const wrong = EVENT_TYPES.flatMap((type) => {
      const value = exampleValue(doc.webhooks[type].post.requestBody.content['application/json']);
      if (value === undefined) return [`${type}: no example`];
      return issues(z.safeParse(EVENT_SCHEMAS[type], value)).map((i) => `${type}: ${i}`);
    });
    expect(wrong).toEqual([]);
  });
});

describe('exampleOf', () => {
  const ctx = { components: { Thing: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] } } };

  it("takes a schema's own example first", () => {
    expect(exampleOf({ type: 'string', examples: ['given'] }, ctx, 'firstName')).toBe('given');
  });

  it('makes values from the member name and format, through references', () => {
    expect(exampleOf({ type: 'object', properties: { firstName: { type: 'string' }, at: { type: 'string', format: 'date-time' }, thing: { $ref: '#/components/schemas/Thing' } }, required: ['firstName', 'at', 'thing'] }, ctx)).toEqual({
      firstName: 'Ann',
      at: '2026-03-14T09:26:53.000Z',
      thing: { id: '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30' },
    });
  });

  it('keeps to length and number bounds', () => {
    expect(exampleOf({ type: 'string', maxLength: 3 }, ctx, 'firstName')).toBe('Ann');
    expect(exampleOf({ type: 'string', minLength: 8 }, ctx, 'firstName')).toBe('AnnAnnAnn');
    expect(exampleOf({ type: 'integer', minimum: 1, maximum: 5 }, ctx, 'size')).toBe(5);
  });
});
