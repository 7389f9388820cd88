import { renderMarkdown } from './markdown.js';
import { escapeHtml, pageFrame } from './page-frame.js';
import { membersHtml, rulesHtml, schemaHtml, typeHtml, type SchemaContext } from './schema-fields.js';

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  method: string;
  path: string;
  op: Json;
  anchor: string;
}

/** Ids of the page's elements: readable, from the names, and never the same twice. */
class Anchors {
  private readonly used = new Set<string>(['main']);
  private readonly given = new Map<string, string>();

  id(kind: string, name: string): string {
    const key = `${kind}\u0000${name}`;
    const known = this.given.get(key);
    if (known) return known;
    const base = `${kind}-${name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'x'}`;
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base}-${n}`;
    this.used.add(id);
    this.given.set(key, id);
    return id;
  }
}

/** An operation's security requirements in words, each scheme as the document describes it. */
function authHtml(op: Json, doc: Json): string {
  const security = (op.security ?? doc.security) as Json[] | undefined;
  if (!security || security.length === 0) return 'Public: no credentials';
  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
  const describe = (name: string) => {
    const s = schemes[name];
    if (!s) return escapeHtml(name);
    if (s.type === 'http' && s.scheme === 'bearer') return `Bearer token${s.bearerFormat ? ` (${escapeHtml(s.bearerFormat)})` : ''} in <code>Authorization</code>`;
    if (s.type === 'apiKey') return `${s.in === 'query' ? 'The' : 'API key in the'} <code>${escapeHtml(s.name)}</code> ${escapeHtml(s.in)}${s.in === 'query' ? ' parameter' : ''}${s.description ? `: ${escapeHtml(s.description)}` : ''}`;
    return escapeHtml(name);
  };
  // Alternatives are joined by "or"; the schemes of one requirement are all needed.
  return security.map((req) => Object.keys(req).map(describe).join(' and ') || 'no credentials').join(', or ');
}

function exampleValue(media: Json | undefined): { found: boolean; value?: unknown } {
  if (!media) return { found: false };
  if (media.example !== undefined) return { found: true, value: media.example };
  const first = media.examples && Object.values(media.examples as Record<string, Json>)[0];
  return first && 'value' in first ? { found: true, value: first.value } : { found: false };
}

function exampleHtml(label: string, media: Json | undefined): string {
  const { found, value } = exampleValue(media);
  if (!found) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return `<details><summary>${escapeHtml(label)}</summary><pre><code>${escapeHtml(text)}</code></pre></details>`;
}

function methodBadge(method: string): string {
  return `<span class="method m-${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span>`;
}

function parametersHtml(params: Json[], ctx: SchemaContext): string {
  if (!params.length) return '';
  const items = params.map((p) => {
    const schema = (p.schema ?? {}) as Json;
    const rules = rulesHtml(schema);
    return (
      `<li><code class="field-name">${escapeHtml(p.name)}</code> <span class="type">${escapeHtml(p.in)}, ${typeHtml(schema, ctx)}</span>` +
      (p.required ? ' <span class="req">required</span>' : '') +
      (p.deprecated ? ' <span class="deprecated">deprecated</span>' : '') +
      (p.description ? renderMarkdown(String(p.description)) : '') +
      (rules ? `<p>${rules}</p>` : '') +
      (p.example !== undefined ? `<p class="rules">Example: <code>${escapeHtml(typeof p.example === 'string' ? p.example : JSON.stringify(p.example))}</code></p>` : '') +
      '</li>'
    );
  });
  return `<h4>Parameters</h4><ul class="fields">${items.join('')}</ul>`;
}

function bodyHtml(body: Json | undefined, ctx: SchemaContext, heading: string): string {
  if (!body?.content) return '';
  const parts = Object.entries(body.content as Record<string, Json>).map(
    ([type, media]) =>
      `<p class="rules">${escapeHtml(type)}${body.required ? ', required' : ''}</p>` + (media.schema ? schemaHtml(media.schema, ctx) : '') + exampleHtml('Example request', media),
  );
  return `<h4>${escapeHtml(heading)}</h4>${body.description ? renderMarkdown(String(body.description)) : ''}${parts.join('')}`;
}

function responsesHtml(responses: Record<string, Json> | undefined, ctx: SchemaContext): string {
  if (!responses) return '';
  const items = Object.entries(responses).map(([status, res]) => {
    const content = Object.entries((res.content ?? {}) as Record<string, Json>);
    const bodies = content.map(([type, media]) => `<span class="rules">${escapeHtml(type)}</span> <span class="type">${typeHtml(media.schema, ctx)}</span>`).join('; ');
    const examples = content.map(([, media]) => exampleHtml(`Example answer ${status}`, media)).join('');
    return `<li><span class="status">${escapeHtml(status)}</span> ${renderMarkdown(String(res.description ?? '')).replace(/^<p>|<\/p>$/g, '')}${bodies ? `<br>${bodies}` : ''}${examples}</li>`;
  });
  return `<h4>Responses</h4><ul class="responses">${items.join('')}</ul>`;
}

// Sections carry no accessible name on purpose: named, each would be a landmark region, and a
// screen reader's list of landmarks would hold hundreds. Their headings are the way around.
function operationHtml({ method, path, op, anchor }: Operation, doc: Json, ctx: SchemaContext): string {
  const permission = op['x-permission'];
  return (
    `<section class="op" id="${escapeHtml(anchor)}">` +
    `<h3>${escapeHtml(op.summary ?? op.operationId ?? `${method} ${path}`)}</h3>` +
    `<p>${methodBadge(method)}<code class="path">${escapeHtml(path)}</code>${op.deprecated ? ' <span class="deprecated">Deprecated</span>' : ''}</p>` +
    '<dl class="meta">' +
    (op.operationId ? `<dt>Operation</dt><dd><code>${escapeHtml(op.operationId)}</code></dd>` : '') +
    `<dt>Auth</dt><dd>${authHtml(op, doc)}</dd>` +
    (permission ? `<dt>Permission</dt><dd><code>${escapeHtml(permission)}</code></dd>` : '') +
    '</dl>' +
    (op.description ? renderMarkdown(String(op.description)) : '') +
    parametersHtml((op.parameters ?? []) as Json[], ctx) +
    bodyHtml(op.requestBody, ctx, 'Request body') +
    responsesHtml(op.responses, ctx) +
    '</section>'
  );
}

function operationsOf(paths: Record<string, Json> | undefined, anchors: Anchors, kind: string): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      // An operation by its id; an event (a webhook, keyed by its name) by its name.
      if (op) out.push({ method, path, op, anchor: anchors.id(kind, kind === 'event' ? path : (op.operationId ?? `${method}-${path}`)) });
    }
  }
  return out;
}

/** Operations by tag, the tags in the document's `tags` order, then in the order they first appear. */
function byTag(operations: Operation[], doc: Json): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>();
  for (const t of (doc.tags ?? []) as Json[]) groups.set(String(t.name), []);
  for (const o of operations) {
    const tag = String(o.op.tags?.[0] ?? 'Other');
    groups.set(tag, [...(groups.get(tag) ?? []), o]);
  }
  for (const [tag, ops] of groups) if (!ops.length) groups.delete(tag);
  return groups;
}

function serversHtml(doc: Json): string {
  const servers = (doc.servers ?? []) as Json[];
  if (!servers.length) return '';
  const items = servers.map((s) => {
    const vars = Object.entries((s.variables ?? {}) as Record<string, Json>).map(
      ([name, v]) => `<li><code class="field-name">${escapeHtml(name)}</code> default <code>${escapeHtml(v.default)}</code>${v.description ? renderMarkdown(String(v.description)) : ''}</li>`,
    );
    return `<li><code>${escapeHtml(s.url)}</code>${s.description ? renderMarkdown(String(s.description)) : ''}${vars.length ? `<ul class="fields">${vars.join('')}</ul>` : ''}</li>`;
  });
  return `<h2 id="servers">Servers</h2><ul class="fields">${items.join('')}</ul>`;
}

/**
 * The API reference page of an OpenAPI 3.1 document: an index, every operation under its tag
 * (method, path, summary, description, auth, permission, parameters, body, responses, examples),
 * the webhooks, and the named schemas that the rest links to. Every text of the document is
 * escaped; its descriptions' markdown is rendered by ./markdown.ts.
 */
export function renderApiReference(doc: Json): string {
  const anchors = new Anchors();
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  // Named schemas get their ids first, so that every link to one is known before it is written.
  for (const name of Object.keys(schemas)) anchors.id('schema', name);
  const ctx: SchemaContext = { schemas, schemaAnchor: (name) => anchors.id('schema', name) };
  const groups = byTag(operationsOf(doc.paths, anchors, 'op'), doc);
  const tagIds = new Map([...groups.keys()].map((tag) => [tag, anchors.id('tag', tag)]));
  const events = operationsOf(doc.webhooks, anchors, 'event');
  const info = (doc.info ?? {}) as Json;

  const index =
    '<nav class="index" aria-label="Contents"><h2 id="contents">Contents</h2><ul>' +
    '<li><a href="#servers">Servers</a></li>' +
    [...groups].map(([tag, ops]) => `<li><a href="#${tagIds.get(tag)}">${escapeHtml(tag)}</a><ul>${ops.map((o) => `<li><a href="#${o.anchor}">${escapeHtml(o.method.toUpperCase())} ${escapeHtml(o.path)}</a></li>`).join('')}</ul></li>`).join('') +
    (events.length ? `<li><a href="#events">Events (webhooks)</a><ul>${events.map((e) => `<li><a href="#${e.anchor}">${escapeHtml(e.path)}</a></li>`).join('')}</ul></li>` : '') +
    (Object.keys(schemas).length ? '<li><a href="#schemas">Schemas</a></li>' : '') +
    '</ul></nav>';

  const tagDescriptions = new Map(((doc.tags ?? []) as Json[]).map((t) => [String(t.name), t.description as string | undefined]));
  const operations = [...groups]
    .map(([tag, ops]) => {
      const description = tagDescriptions.get(tag);
      return `<h2 id="${tagIds.get(tag)}">${escapeHtml(tag)}</h2>${description ? renderMarkdown(description) : ''}${ops.map((o) => operationHtml(o, doc, ctx)).join('')}`;
    })
    .join('');

  const webhooks = events.length
    ? '<h2 id="events">Events (webhooks)</h2><p>What the service sends: each event as the request a webhook receives.</p>' +
      events
        .map(
          ({ path: name, op, anchor }) =>
            `<section class="op" id="${escapeHtml(anchor)}"><h3><code>${escapeHtml(name)}</code></h3>` +
            (op.summary ? `<p>${escapeHtml(op.summary)}</p>` : '') +
            (op.description ? renderMarkdown(String(op.description)) : '') +
            bodyHtml(op.requestBody, ctx, 'Payload').replace(/Example request/g, 'Example payload') +
            '</section>',
        )
        .join('')
    : '';

  const components = Object.keys(schemas).length
    ? '<h2 id="schemas">Schemas</h2>' +
      Object.entries(schemas)
        .map(([name, schema]) => {
          const id = ctx.schemaAnchor(name);
          const rules = rulesHtml(schema);
          return (
            `<section class="op" id="${escapeHtml(id)}"><h3>${escapeHtml(name)}</h3>` +
            `<p><span class="type">${typeHtml(schema, ctx)}</span>${rules ? ` ${rules}` : ''}</p>` +
            (schema.description ? renderMarkdown(String(schema.description)) : '') +
            membersHtml(schema, ctx) +
            '</section>'
          );
        })
        .join('')
    : '';

  const body =
    `<h1>API reference</h1><p class="lead">${escapeHtml(info.title ?? 'API')}${info.version ? `, version ${escapeHtml(info.version)}` : ''}. ` +
    'Every operation the service serves, rendered from <a href="/openapi.json">its OpenAPI document</a>.</p>' +
    (info.description ? renderMarkdown(String(info.description)) : '') +
    index +
    serversHtml(doc) +
    operations +
    webhooks +
    components;
  return pageFrame({ title: `API reference – ${info.title ?? 'API'}`, current: '/docs', body });
}
