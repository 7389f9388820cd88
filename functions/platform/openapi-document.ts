import type * as z4 from 'zod/v4/core';
import * as z from '../shared/zod.js';
import { qualify } from '../auth/permissions.js';
import type { RouteDef } from '../http/route.js';
import { httpErrorCodes } from '../errors.js';
import { EVENT_SCHEMAS, EVENT_SUMMARIES, EVENT_TYPES } from '../events/catalogue.js';
import { exampleOf } from './openapi-examples.js';
import { OPERATION_EXAMPLES } from './openapi-operation-examples.js';

type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect), with named schemas hoisted into components. */
function toSchema(schema: z4.$ZodType, io: 'input' | 'output', components: Json): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  const defs = (json.$defs ?? {}) as Json;
  delete json.$defs;
  delete json.$schema;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) {
        out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', SCHEMA_REF) : rewrite(v);
      }
      return out;
    }
    return node;
  };
  for (const [name, def] of Object.entries(defs)) components[name] ??= rewrite(def);
  return rewrite(json) as Json;
}

function parameters(schema: z4.$ZodType | undefined, where: 'path' | 'query' | 'header', components: Json): Json[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input', components);
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, prop]) => {
    const { description, ...rest } = prop;
    if (rest.type === 'integer') delete rest.pattern;
    const isList = Array.isArray(rest.anyOf) && (rest.anyOf as Json[]).some((s) => s.type === 'array');
    const schema = isList ? (rest.anyOf as Json[]).find((s) => s.type === 'array')! : rest;
    const example = exampleOf(schema, { components }, name);
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema,
      ...(isList ? { style: 'form', explode: true } : {}),
      ...(example !== undefined && (where === 'path' || required.has(name) || name in PARAMETER_EXAMPLES) ? { example: PARAMETER_EXAMPLES[name] ?? example } : {}),
    };
  });
}

/** Query parameters worth showing in an example although optional (the rest are left out). */
const PARAMETER_EXAMPLES: Record<string, unknown> = { size: 20, sort: ['createdDtm,desc'], searchString: 'Ann' };

/** The largest integer zod's JSON Schema gives as the bounds of every `z.int()`: no bound at all. */
const SAFE = Number.MAX_SAFE_INTEGER;
/** Formats for which zod also writes out its own validating regex as `pattern`: the format says it. */
const FORMATS_WITH_ZOD_PATTERN = new Set(['date-time', 'date', 'time', 'uuid', 'email', 'uri', 'ipv4', 'ipv6', 'duration']);

/**
 * Removes what zod's JSON Schema carries that says nothing to a client and trips generators: the
 * ±2^53-1 bounds of every integer, the regex written next to a `format`, and `propertyNames:
 * {type: string}` on every record (JSON object keys are strings). Examples are left alone.
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples') out[k] = v;
    else if ((k === 'minimum' && v === -SAFE) || (k === 'maximum' && v === SAFE)) continue;
    else if (k === 'pattern' && FORMATS_WITH_ZOD_PATTERN.has((node as Json).format as string)) continue;
    else if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue;
    else out[k] = tidy(v);
  }
  return out;
}

/** The status of an operation's main answer: its first 2xx with a JSON body. */
function mainResponse(route: RouteDef): number | undefined {
  return Object.entries(route.responses)
    .filter(([status, res]) => Number(status) < 300 && res.schema && !res.contentType)
    .map(([status]) => Number(status))
    .sort((a, b) => a - b)[0];
}

export interface OpenApiOptions {
  title?: string;
  version?: string;
  serverUrl?: string;
}

/** The OpenAPI 3.1 document, generated from the route table and nothing else. */
export function buildOpenApiDocument(routes: RouteDef[], opts: OpenApiOptions = {}): Json {
  const components: Json = {};
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const responses: Json = {};
    const main = mainResponse(route);
    const given = OPERATION_EXAMPLES[route.operationId as keyof typeof OPERATION_EXAMPLES];
    for (const [status, res] of Object.entries(route.responses)) {
      const schema = res.schema ? toSchema(res.schema, 'output', components) : undefined;
      const example = Number(status) === main ? (given?.response ?? exampleOf(schema, { components })) : undefined;
      responses[status] = {
        description: res.description,
        ...(schema
          ? { content: { [res.contentType ?? 'application/json']: { schema, ...(example !== undefined ? { examples: { [route.operationId]: { value: example } } } : {}) } } }
          : {}),
      };
    }
    const bodySchema = route.request.body ? toSchema(route.request.body, 'input', components) : undefined;
    const bodyExample = bodySchema ? (given?.request ?? exampleOf(bodySchema, { components })) : undefined;
    const security = {
      bearer: [{ bearerAuth: [] }],
      apiKey: [{ apiKeyAuth: [] }],
      bearerOrApiKey: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
      endUser: [{ journeyCapability: [] }],
      public: [],
    }[route.auth];
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...(route.deprecated ? { deprecated: true } : {}),
      security,
      ...(route.permission ? { 'x-permission': qualify('{tenantId}' as never, route.permission) } : {}),
      parameters: [
        ...parameters(route.request.path, 'path', components),
        ...parameters(route.request.query, 'query', components),
        ...parameters(route.request.headers, 'header', components),
      ],
      ...(bodySchema
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: bodySchema, ...(bodyExample !== undefined ? { examples: { [route.operationId]: { value: bodyExample } } } : {}) },
              },
            },
          }
        : {}),
      responses,
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  // The zod schema keeps `code` a string (a client must accept codes added later); the document
  // lists the codes of the catalogue, functions/errors.ts, so a client can switch on them.
  const errorCode = ((components.Error as Json | undefined)?.properties as Record<string, Json> | undefined)?.code;
  if (errorCode) errorCode.enum = httpErrorCodes();
  // The event catalogue (functions/events/catalogue.ts): what each event carries, as OpenAPI 3.1's
  // `webhooks` describe requests the service makes.
  const webhooks: Record<string, Json> = {};
  for (const type of EVENT_TYPES) {
    const schema = toSchema(EVENT_SCHEMAS[type], 'output', components);
    const made = exampleOf(schema, { components }) as Json | undefined;
    // An event's own id is an `evt_` ULID (functions/shared/events.ts), not the subject's id.
    const example = made && { ...made, id: 'evt_01JPC6Q8V4Z7R2M5N9K3T1W0XB' };
    webhooks[type] = {
      post: {
        operationId: `event.${type}`,
        summary: EVENT_SUMMARIES[type],
        description:
          "Put on the deployment's EventBridge bus (source `arthr.events`, detail-type the event's type, detail this " +
          'payload) once the change is written: at least once, so deduplicate on `id`. Clients must ignore unknown fields.',
        tags: ['Events'],
        requestBody: {
          required: true,
          content: { 'application/json': { schema, ...(example !== undefined ? { examples: { [type]: { value: example } } } : {}) } },
        },
        responses: { '2XX': { description: 'Received.' } },
      },
    };
  }
  return tidy({
    openapi: '3.1.0',
    info: {
      title: opts.title ?? 'Identity verification and authentication orchestration API',
      version: opts.version ?? '1',
      description:
        'Every tenant route is served on https://{tenantId}.{region}.<service domain>. Clients must ignore unknown ' +
        'response fields. Errors share one body: {code, message, details?}.',
    },
    servers: opts.serverUrl
      ? [{ url: opts.serverUrl }]
      : [
          {
            url: 'http://{tenantId}.fir.localhost:{port}',
            description: 'The local runtime (`npm start`); its tenant and port are in `.local/bootstrap.json`.',
            variables: {
              tenantId: { default: 'demo', description: 'The tenant: `demo` is made by the first `npm start`.' },
              port: { default: '8080', description: 'The port `npm start` listens on (`PORT`).' },
            },
          },
          {
            url: 'https://{tenantId}.{region}.{serviceDomain}',
            description: 'A deployment on AWS (docs/aws.md): its region label and the `serviceDomain` it was deployed with.',
            variables: {
              tenantId: { default: 'demo', description: 'The tenant.' },
              region: { default: 'fir', enum: ['fir', 'gum', 'oak'], description: "The deployment's region label." },
              serviceDomain: { default: 'id.example.com', description: "The deployment's `serviceDomain` (`-c serviceDomain=...`)." },
            },
          },
        ],
    paths,
    webhooks,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        journeyCapability: {
          type: 'apiKey',
          in: 'query',
          name: 'c',
          description: "The end user's capability for one process instance, carried by its redirect URL.",
        },
      },
    },
  }) as Json;
}
