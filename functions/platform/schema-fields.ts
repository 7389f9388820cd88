import { renderMarkdown } from './markdown.js';
import { escapeHtml } from './page-frame.js';

type Json = Record<string, any>;

const REF = '#/components/schemas/';

/** What rendering a schema needs: the document's named schemas and the anchor each is shown at. */
export interface SchemaContext {
  schemas: Record<string, Json>;
  /** The id of the element a named schema is shown in (the page's schemas section). */
  schemaAnchor: (name: string) => string;
}

/** How deep nested inline objects are shown; deeper ones (none in the document today) say so. */
const MAX_DEPTH = 8;

function refName(schema: Json): string | undefined {
  return typeof schema.$ref === 'string' && schema.$ref.startsWith(REF) ? schema.$ref.slice(REF.length) : undefined;
}

/** A `$ref` to one of the document's schemas as what it names, else the schema itself. */
export function resolve(schema: Json, ctx: SchemaContext): Json {
  const name = refName(schema);
  return (name && ctx.schemas[name]) || schema;
}

function refLink(name: string, ctx: SchemaContext): string {
  return `<a href="#${escapeHtml(ctx.schemaAnchor(name))}">${escapeHtml(name)}</a>`;
}

const code = (value: unknown) => `<code>${escapeHtml(JSON.stringify(value))}</code>`;

/** The variants of a union, `null` left out (it is said as "or null"). */
function variants(schema: Json): Json[] | undefined {
  const list = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return Array.isArray(list) ? list : undefined;
}

/** A schema's type in a few words, a named schema as a link to it: `array of ApiKey`, `string (date-time) or null`. */
export function typeHtml(schema: Json | undefined, ctx: SchemaContext): string {
  if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0) return 'any';
  const name = refName(schema);
  if (name) return refLink(name, ctx);
  if ('const' in schema) return `constant ${code(schema.const)}`;
  const union = variants(schema);
  if (union) return union.map((v) => typeHtml(v, ctx)).join(' or ');
  if (Array.isArray(schema.allOf)) return (schema.allOf as Json[]).map((v) => typeHtml(v, ctx)).join(' and ');
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return schema.properties ? 'object' : 'any';
  return types
    .map((type) => {
      if (type === 'array') return `array of ${typeHtml(schema.items, ctx)}`;
      if (type === 'object' && !schema.properties && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        return `map of string to ${typeHtml(schema.additionalProperties, ctx)}`;
      }
      return schema.format ? `${escapeHtml(type)} (${escapeHtml(schema.format)})` : escapeHtml(type);
    })
    .join(' or ');
}

/** The schema's bounds and rules in words: lengths, ranges, item counts, pattern, allowed values, default. */
export function rulesHtml(schema: Json): string {
  const rules: string[] = [];
  const range = (min: unknown, max: unknown, unit: string) => {
    if (min !== undefined && max !== undefined) rules.push(`${min} to ${max} ${unit}`);
    else if (min !== undefined) rules.push(`at least ${min} ${unit}`);
    else if (max !== undefined) rules.push(`at most ${max} ${unit}`);
  };
  range(schema.minLength, schema.maxLength, 'characters');
  range(schema.minItems, schema.maxItems, 'items');
  range(schema.minProperties, schema.maxProperties, 'members');
  if (schema.minimum !== undefined) rules.push(`minimum ${escapeHtml(schema.minimum)}`);
  if (schema.exclusiveMinimum !== undefined) rules.push(`greater than ${escapeHtml(schema.exclusiveMinimum)}`);
  if (schema.maximum !== undefined) rules.push(`maximum ${escapeHtml(schema.maximum)}`);
  if (schema.exclusiveMaximum !== undefined) rules.push(`less than ${escapeHtml(schema.exclusiveMaximum)}`);
  if (schema.multipleOf !== undefined) rules.push(`a multiple of ${escapeHtml(schema.multipleOf)}`);
  if (schema.uniqueItems) rules.push('items unique');
  if (typeof schema.pattern === 'string') rules.push(`matches <code>${escapeHtml(schema.pattern)}</code>`);
  if (Array.isArray(schema.enum)) rules.push(`one of ${(schema.enum as unknown[]).map(code).join(', ')}`);
  if (schema.items && typeof schema.items === 'object' && Array.isArray(schema.items.enum)) {
    rules.push(`each one of ${(schema.items.enum as unknown[]).map(code).join(', ')}`);
  }
  if (schema.contentMediaType) rules.push(`a string holding ${escapeHtml(schema.contentMediaType)}`);
  if (schema.default !== undefined) rules.push(`default ${code(schema.default)}`);
  if (schema.readOnly) rules.push('read only');
  if (schema.writeOnly) rules.push('write only');
  if (schema.additionalProperties === false && schema.properties) rules.push('no other members');
  return rules.length ? `<span class="rules">${rules.join('; ')}</span>` : '';
}

/** The inline object whose members a field shows nested: its own, its items', or a union's variants'. */
function nestedHtml(schema: Json, ctx: SchemaContext, depth: number): string {
  if (schema.properties) return fieldsHtml(schema, ctx, depth + 1);
  if (schema.items && typeof schema.items === 'object' && !refName(schema.items)) return nestedHtml(schema.items, ctx, depth);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && !refName(schema.additionalProperties)) {
    return nestedHtml(schema.additionalProperties, ctx, depth);
  }
  // A union's variants are listed only when one of them has members to show.
  const union = variants(schema)?.map((v) => ({ v, members: nestedHtml(v, ctx, depth + 1) }));
  if (union?.some((u) => u.members)) {
    return `<ul class="fields">${union
      .map(({ v, members }, i) => `<li><span class="field-name">Variant ${i + 1}</span> <span class="type">${typeHtml(v, ctx)}</span>${v.description ? renderMarkdown(String(v.description)) : ''}${members}</li>`)
      .join('')}</ul>`;
  }
  return '';
}

/**
 * An object schema's members as a nested list: name, type (named schemas linked), a required
 * mark, description, bounds, and inline objects' own members indented below. Empty for a schema
 * without members.
 */
export function fieldsHtml(schema: Json, ctx: SchemaContext, depth = 0): string {
  const props = schema.properties as Record<string, Json> | undefined;
  if (!props || !Object.keys(props).length) return '';
  if (depth > MAX_DEPTH) return '<p class="rules">Nested deeper than this page shows: see the OpenAPI document.</p>';
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  const items = Object.entries(props).map(([name, prop]) => {
    const rules = rulesHtml(prop);
    return (
      `<li><code class="field-name">${escapeHtml(name)}</code> <span class="type">${typeHtml(prop, ctx)}</span>` +
      (required.has(name) ? ' <span class="req">required</span>' : '') +
      (prop.deprecated ? ' <span class="deprecated">deprecated</span>' : '') +
      (prop.description ? renderMarkdown(String(prop.description)) : '') +
      (rules ? `<p>${rules}</p>` : '') +
      nestedHtml(prop, ctx, depth) +
      '</li>'
    );
  });
  return `<ul class="fields">${items.join('')}</ul>`;
}

/**
 * A body's schema in full: its type (a named schema linked), the description and rules of what it
 * names, and its members listed (a named schema's resolved, an array's items').
 */
export function schemaHtml(schema: Json, ctx: SchemaContext): string {
  const resolved = resolve(schema, ctx);
  const target = resolved.type === 'array' && resolved.items ? resolve(resolved.items, ctx) : resolved;
  const rules = rulesHtml(resolved);
  const description = refName(schema) && resolved.description ? renderMarkdown(String(resolved.description)) : '';
  return (
    `<p><span class="type">${typeHtml(schema, ctx)}</span>${rules ? ` ${rules}` : ''}</p>` +
    description +
    membersHtml(target, ctx)
  );
}

/** A schema's members: an object's fields, or each variant of a union with its own. */
export function membersHtml(schema: Json, ctx: SchemaContext): string {
  return fieldsHtml(schema, ctx) || nestedHtml(schema, ctx, 0);
}
