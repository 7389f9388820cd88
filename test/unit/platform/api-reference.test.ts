import { describe, expect, it } from 'vitest';
import { routeList } from '../../../functions/routes.js';
import { buildOpenApiDocument } from '../../../functions/platform/openapi-document.js';
import { renderApiReference } from '../../../functions/platform/api-reference.js';

type Json = Record<string, any>;
const doc = buildOpenApiDocument(routeList) as Json;
const html = renderApiReference(doc);
const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);

/** The HTML of the element whose id is `id`, up to the next section of the page. */
function section(id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, id).toBeGreaterThan(-1);
  const end = html.indexOf('<section', start + 1);
  return html.slice(start, end === -1 ? undefined : end);
}

describe('renderApiReference', () => {
  it('shows every operation of the served document, under its tag and in the index, with its method, path and summary', () => {
    const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op: op as Json })));
    expect(operations.length).toBe(routeList.length);
    for (const { path, method, op } of operations) {
      const html = section(`op-${op.operationId}`);
      expect(html, op.operationId).toContain(`>${method.toUpperCase()}</span><code class="path">${path.replace(/&/g, '&amp;')}</code>`);
      expect(html, op.operationId).toContain(op.summary.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
      expect(html, op.operationId).toContain(`<code>${op.operationId}</code>`);
    }
    const index = html.slice(html.indexOf('<nav class="index"'), html.indexOf('</nav>', html.indexOf('<nav class="index"')));
    for (const { op } of operations) expect(index).toContain(`href="#op-${op.operationId}"`);
    // Tags in the order they first appear, each one heading.
    const tags = [...new Set(operations.map((o) => o.op.tags[0] as string))];
    const headings = [...html.matchAll(/<h2 id="tag-[^"]+">([^<]+)<\/h2>/g)].map((m) => m[1]!.replace(/&#39;/g, "'"));
    expect(headings).toEqual(tags);
  });

  it('shows every webhook event and every named schema', () => {
    for (const name of Object.keys(doc.webhooks)) expect(section(`event-${name}`)).toContain(`<code>${name}</code></h3>`);
    for (const name of Object.keys(doc.components.schemas)) expect(section(`schema-${name}`)).toContain(`>${name}</h3>`);
  });

  it('gives every element a unique id, and every link on the page goes to one of them', () => {
    expect(ids.length).toBeGreaterThan(200);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const targets = new Set(ids);
    const broken = [...html.matchAll(/href="#([^"]*)"/g)].map((m) => m[1]!).filter((id) => !targets.has(id));
    expect([...new Set(broken)]).toEqual([]);
  });

  it('resolves every $ref: a body lists the fields of the schema it names and links to it, and no reference is left as text', () => {
    expect(html.includes('#/components/schemas/')).toBe(false);
    const create = section('op-createApiKey');
    expect(create).toContain('<a href="#schema-ApiKeyCreate">ApiKeyCreate</a>');
    expect(create).toMatch(/<code class="field-name">name<\/code> <span class="type">string<\/span> <span class="req">required<\/span>/);
    expect(create).toContain('<code class="field-name">permissions</code> <span class="type">array of string</span>');
    expect(create).toContain('at most 100 items');
    // Answers name their schema by link.
    expect(create).toContain('<span class="status">201</span>');
    expect(create).toContain('<a href="#schema-ApiKeyCreated">ApiKeyCreated</a>');
    expect(create).toContain('<a href="#schema-Error">Error</a>');
  });

  it('says each operation\'s auth and the permission the document records', () => {
    expect(section('op-createApiKey')).toContain('<dt>Permission</dt><dd><code>TNT#{tenantId}#ArthrServer:createTenantApiKey</code></dd>');
    expect(section('op-createApiKey')).toContain('Bearer token (JWT) in <code>Authorization</code>');
    expect(section('op-issueToken')).toContain('API key in the <code>X-API-Key</code> header');
    expect(section('op-openapi')).toContain('<dt>Auth</dt><dd>Public: no credentials</dd>');
    for (const route of routeList.filter((r) => r.permission)) expect(section(`op-${route.operationId}`), route.operationId).toContain(`#${route.permission}</code></dd>`);
  });

  it('lists parameters with their place, type, required mark and description, and nested members indented', () => {
    const search = section('op-searchProcessInstances');
    expect(search).toContain('<code class="field-name">processInstanceStatus</code> <span class="type">query, array of string</span>');
    expect(search).toContain('each one of <code>&quot;PENDING&quot;</code>');
    const definition = section('schema-ProcessDefinitionCreate');
    // activities: a map whose values' members are listed one level in.
    expect(definition).toMatch(/<code class="field-name">activities<\/code> <span class="type">map of string to object<\/span> <span class="req">required<\/span>.*?<ul class="fields"><li><code class="field-name">type<\/code>/s);
  });

  it('shows the examples the document gives, escaped', () => {
    const create = section('op-createApiKey');
    expect(create).toContain('<summary>Example request</summary>');
    expect(create).toContain('&quot;name&quot;: &quot;backend&quot;');
    expect(create).toContain('<summary>Example answer 201</summary>');
  });

  it('escapes every text of the document: a script in a description, summary, tag or name is inert', () => {
    const evil = '<script>alert(1)</script>';
    const page = renderApiReference({
      openapi: '3.1.0',
      info: { title: `T ${evil}`, version: '1', description: evil },
      paths: {
        '/x/{id}': {
          get: {
            operationId: 'x"><script>alert(2)</script>',
            summary: evil,
            description: `${evil} [a](javascript:alert(3))`,
            tags: [`Tag ${evil}`],
            'x-permission': evil,
            security: [{ bearer: [] }],
            parameters: [{ name: evil, in: 'path', required: true, description: evil, schema: { type: 'string', pattern: evil, enum: [evil] } }],
            responses: { 200: { description: evil, content: { 'application/json': { schema: { $ref: '#/components/schemas/S' }, example: { a: evil } } } } },
          },
        },
      },
      components: { schemas: { S: { type: 'object', description: evil, properties: { [evil]: { type: 'string', description: evil } } } }, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    });
    expect(page).not.toMatch(/<script|javascript:alert\(3\)"|href="javascript/i);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const pageIds = [...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(pageIds.every((id) => /^[A-Za-z0-9_.-]+$/.test(id))).toBe(true);
  });
});
