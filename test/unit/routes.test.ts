import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi-document.js';
import { EVENT_TYPES } from '../../functions/events/catalogue.js';
import { isPermissionName } from '../../functions/auth/permissions.js';
import { DIRECT_OPERATIONS } from '../../functions/api-keys/schemas.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the route table', () => {
  it('names each operation and each method + path once', () => {
    expect(new Set(routeList.map((r) => r.operationId)).size).toBe(routeList.length);
    expect(new Set(routeList.map((r) => `${r.method} ${r.path}`)).size).toBe(routeList.length);
  });

  it('gives every bearer route a known permission and no other route one', () => {
    for (const r of routeList) {
      if (r.auth === 'bearer' || r.auth === 'bearerOrApiKey') expect(isPermissionName(r.permission ?? ''), r.operationId).toBe(true);
      else expect(r.permission, r.operationId).toBeUndefined();
    }
  });

  it("points each route at a handler file whose handler was built for that route", async () => {
    for (const r of routeList) {
      expect(existsSync(resolve(ROOT, r.handler)), r.handler).toBe(true);
      const mod = await import(resolve(ROOT, r.handler));
      expect(mod.handler.route, r.handler).toBe(r);
    }
  });

  it('names each handler file after its operation (kebab-case of the operationId)', () => {
    const kebab = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    const misnamed = routeList.filter((r) => r.handler.split('/').pop() !== `${kebab(r.operationId)}.ts`).map((r) => `${r.operationId}: ${r.handler}`);
    expect(misnamed).toEqual([]);
  });

  it('declares every path parameter in its path schema', () => {
    for (const r of routeList) {
      const params = [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const shape = (r.request.path as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      expect(Object.keys(shape).sort(), r.operationId).toEqual(params.sort());
    }
  });
});

describe('path variables', () => {
  it('are named alike at the same level under the same parent, as API Gateway requires', () => {
    // API Gateway refuses `/a/{id}` beside `/a/{name}/b` (a conflicting variable on the same level).
    const names = new Map<string, { name: string; op: string }>();
    for (const r of routeList) {
      const segs = r.path.split('/');
      segs.forEach((seg, i) => {
        const m = /^\{([^}]+)\}$/.exec(seg);
        if (!m) return;
        const parent = segs.slice(0, i).map((s) => (/^\{/.test(s) ? '{}' : s)).join('/');
        const seen = names.get(parent);
        if (seen) expect(m[1], `${r.operationId} vs ${seen.op} under ${parent}`).toBe(seen.name);
        else names.set(parent, { name: m[1]!, op: r.operationId });
      });
    }
  });
});

describe('DIRECT_OPERATIONS', () => {
  it('lists exactly the operations that take an API key directly', () => {
    const direct = routeList.filter((r) => r.auth === 'apiKey' || r.auth === 'bearerOrApiKey').map((r) => r.operationId);
    expect([...DIRECT_OPERATIONS].sort()).toEqual(direct.sort());
  });
});

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument(routeList) as any;
  it('documents exactly the routes of the table with their security', () => {
    for (const r of routeList) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      expect(op.operationId).toBe(r.operationId);
      const expected = {
        bearer: [{ bearerAuth: [] }],
        apiKey: [{ apiKeyAuth: [] }],
        bearerOrApiKey: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
        endUser: [{ journeyCapability: [] }],
        public: [],
      };
      expect(op.security).toEqual(expected[r.auth]);
    }
  });
  it('resolves every $ref to a component schema', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
  });
  it('lists every event of the catalogue under webhooks, each payload with its type, subject and ids, and no end-user data', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const status = doc.webhooks['process-instance.status-changed'].post.requestBody.content['application/json'].schema;
    expect(status.properties.type).toMatchObject({ enum: ['process-instance.status-changed'] });
    expect(status.required).toEqual(expect.arrayContaining(['id', 'type', 'tenantId', 'timestamp', 'subject', 'data']));
    expect(Object.keys(status.properties.data.properties).sort()).toEqual(
      ['previousStatus', 'processDefnId', 'processDefnName', 'processDefnVersion', 'processInstanceId', 'processTokenId', 'status'].sort(),
    );
    // Ids, names and statuses: no parameters (the end user's name, e-mail) and no session.
    expect(JSON.stringify(doc.webhooks)).not.toMatch(/"(parameters|firstName|email|session|_faces)"/);
  });
  it('shows the API key limits of the spec', () => {
    const key = doc.components.schemas.ApiKeyCreate;
    expect(key.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(key.properties.description).toMatchObject({ minLength: 0, maxLength: 255 });
    const size = doc.paths['/api/arthr/apiKeys'].get.parameters.find((p: { name: string }) => p.name === 'size');
    expect(size.schema).toMatchObject({ type: 'integer', minimum: 1 });
  });
});
