/**
 * Examples for the OpenAPI document, made from the JSON Schemas it already holds: a schema's own
 * `examples` (set with `withMeta` where a realistic value needs knowing the domain: a user data
 * document, a check), else a value made from the member's name and format (ids, dates, names of
 * the demo tenant's journey). Made rather than written per operation so that every operation has
 * one and none can go stale: test/unit/openapi-examples.test.ts parses each with its route's
 * zod schema.
 */

type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** One fixed id per member name, so an instance's id is the same in every example. */
const IDS: Record<string, string> = {
  processInstanceId: '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30',
  processDefnId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  processDefinitionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  processTokenId: '3b241101-e2bb-4255-8caf-4136c566a962',
  apiKeyId: '5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  webhookId: '9a4f2c1e-6b3d-4e8a-b7c5-1d2e3f4a5b6c',
  watchlistId: 'c56a4180-65aa-42ec-a945-5fd21dec0538',
  identityStoreId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  exportId: '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b',
  cloudFunctionId: 'd9428888-122b-41a9-8a8f-5a1b2c3d4e5f',
  id: '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30',
};
const FALLBACK_ID = '8d3e5b1a-4f2c-4a6e-9d7b-3c1f5e2a8b40';

const AT = '2026-03-14T09:26:53.000Z';

/** Values by member name, where the name says what a realistic value is. */
const BY_NAME: Record<string, unknown> = {
  tenantId: 'demo',
  assetSecret: 'q3L9xV0mZ8tR2kP5wY7bNc',
  file: 'logo.png',
  processDefnName: 'identity-check',
  processDefinitionName: 'identity-check',
  processDefnVersion: 1,
  processDefinitionVersion: 1,
  version: 1,
  firstName: 'Ann',
  lastName: 'Lee',
  email: 'ann.lee@example.com',
  phoneNumber: '+447700900123',
  username: 'ann.lee',
  searchString: 'Ann',
  name: 'identity-check',
  storeName: 'customers',
  functionName: 'score-applicant',
  displayName: 'Face image capture',
  description: 'Checks a new customer against their photo.',
  comment: 'Passport checked by hand against the selfie: same person.',
  checkType: 'FACE_CAPTURE',
  checkId: 'selfie',
  imageKey: 'selfie',
  captureKey: 'selfie',
  dataKey: 'personal',
  activityId: 'Activity_capture_face',
  startActivityId: 'StartEvent_1',
  activityType: 'CAPTURE_FACE_IMAGE',
  contentType: 'image/jpeg',
  imageFormat: 'JPEG',
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  width: 720,
  height: 960,
  bytes: 148213,
  ttl: 3600,
  size: 20,
  pageSize: 20,
  pageNumber: 0,
  number: 0,
  offset: 0,
  totalElements: 1,
  totalPages: 1,
  numberOfElements: 1,
  retentionDays: 30,
  elapsedMilliseconds: 184230,
  latencyMs: 212,
  durationMs: 212,
  timeoutSeconds: 10,
  memoryMb: 128,
  counter: 1,
  attempts: 1,
  url: 'https://hooks.bank.example/identity',
  uiUrl: 'https://bank.example/onboarding/done',
  redirectUrl: 'http://demo.fir.localhost:8080/journey/0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30?c=kq3v9Xw2pL8sT4mN6bR1yZ0aD5fG7hJ2',
  origin: 'https://bank.example',
  rpId: 'bank.example',
  rpName: 'Example Bank',
  message: 'Looks good.',
  token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImRlbW8tMSJ9.eyJpc3MiOiJodHRwOi8vbG9jYWxob3N0In0.c2lnbmF0dXJl',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  password: 'Blue-Harbour-42!',
  value: 'crm_live_7Hq2mX9pL4vR8sT1',
  parameters: { firstName: 'Ann', lastName: 'Lee', email: 'ann.lee@example.com' },
  processTokenParameters: { firstName: 'Ann' },
  forms: { personal: { firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-04-12' } },
  values: { firstName: 'Ann', lastName: 'Lee' },
  headers: { 'content-type': 'image/jpeg' },
  uploadHeaders: { 'content-type': 'image/jpeg' },
  permissions: ['TNT#demo#ArthrServer:getFromTenant'],
  eventTypes: ['process-instance.completed'],
  allowedOrigins: ['https://bank.example'],
  sort: ['createdDtm,desc'],
  tags: ['production'],
  processDefnTag: 'production',
  nextCursor: null,
  more: false,
  first: true,
  last: true,
  sorted: true,
  paged: true,
  enabled: true,
  valid: true,
  verified: true,
  memberCount: 3,
  rows: 1250,
  createdBy: 'apikey:5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  lastUpdatedBy: 'apikey:5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  reviewedBy: 'apikey:5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  externalId: 'customer-48213',
  policyName: 'default',
  code: 'k7Qm2x',
  pt: '3b241101-e2bb-4255-8caf-4136c566a962',
  extendedSearchField: 'customerNumber',
  extendedSearchTerms: ['48213'],
  statusMapped: 'Pending',
  // Events carry the instance's statuses as plain strings (a subscriber must take new ones).
  status: 'COMPLETED_ENDED_SUCCESS',
  previousStatus: 'ACTIVE',
  userId: '01JPC6Q8V4Z7R2M5N9K3T1W0XB',
  logEventId: '01JPC6R2D5K8M1N4P7Q0S3T6V9',
  outcome: 'PASS',
  result: 'PASS',
  decision: 'PASS',
  entryPoint: 'main',
  fileName: 'selfie.jpg',
  label: 'Work laptop',
  actor: 'apikey:5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  creationOption: 'designer',
  themeId: null,
  serverType: null,
  processDefinitionType: null,
  resource: '{"title":{"values":{"en":"Your details"}},"version":1,"components":[{"type":"text","id":"firstName","label":{"values":{"en":"First name"}}}]}',
  source: 'export async function main(inputs) {\n  return { score: inputs.amount > 10000 ? 0.4 : 0.9 };\n}\n',
  zip: 'UEsDBBQAAAAIAFZ0bVrJ3w2lNgAAADgAAAAIAAAAaW5kZXguanM=',
  files: ['index.js'],
  image: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/',
  data: 'eyJwcm9jZXNzSW5zdGFuY2VJZCI6IjBmNmIyYTY0LTNjMWUtNGQ3YS05YjhlLTVhMmYxYzdkOWUzMCIsInN0YXR1cyI6IkNPTVBMRVRFRF9FTkRFRF9TVUNDRVNTIn0=',
  error: 'The archive could not be written: the instance is past its retention.',
  eventId: 'evt_01JPC6Q8V4Z7R2M5N9K3T1W0XB',
  eventType: 'process-instance.completed',
  subjectId: '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30',
  executionId: '2c4e6a8b-1d3f-4a5b-8c7d-9e0f1a2b3c4d',
  nextToken: 'eyJ0IjoiMjAyNi0wMy0xNFQwOToyNjo1My4wMDBaIiwiaSI6ImV2dF8wMUpQQzZROFY0WjdSMk01TjlLM1QxVzBYQiJ9',
  sessionId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  // Passkeys (WebAuthn): a synced passkey of a phone, as SimpleWebAuthn reports it.
  aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
  attestationFormat: 'none',
  credentialDeviceType: 'multiDevice',
  credentialId: 'KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJVCWt0eSDgPHHhE',
  rawId: 'KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJVCWt0eSDgPHHhE',
  transports: ['internal', 'hybrid'],
  registrationPolicy: 'default',
  // Passcodes (SRP-6a over the RFC 5054 2048-bit group, as tssrp6a computes it).
  group: 'rfc5054-2048',
  hash: 'SHA-256',
  routines: 'tssrp6a',
  g: '2',
  n: 'AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050A37329CBB4A099ED8193E0757767A13DD52312AB4B03310DCD7F48A9DA04FD50E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B855F97993EC975EEAA80D740ADBF4FF747359D041D5C33EA71D281E446B14773BCA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748544523B524B0D57D5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB694B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73',
  i: 'ann.lee',
  identity: 'ann.lee',
  salt: '3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e',
  historySalts: ['8e2c4a6b1d3f5a7c9e0b2d4f6a8c1e3b'],
  verifier: '5b1f9d3c7a2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d2f4a6c8e1b3d5f7a9c0e2b4d',
};

export interface ExampleContext {
  components: Json;
  /** The component schema being made (the last `$ref` followed): a `name` depends on what it names. */
  owner?: string;
}

/** What a `name` is in each kind of thing, by the component's name (its first match, by prefix). */
const NAME_BY_OWNER: [string, string, string][] = [
  ['ApiKey', 'backend', 'The onboarding backend: starts journeys and reads their results.'],
  ['ProcessToken', 'onboarding-web', 'New customers from the web sign-up.'],
  ['FaceWatchlistMember', 'Known fraud case 2291', 'Added after case 2291.'],
  ['FaceWatchlist', 'fraud-suspects', 'Faces of confirmed fraud cases.'],
  ['Webhook', 'onboarding-results', 'Onboarding results'],
  ['IdentityStore', 'customers', 'Retail banking customers.'],
  ['CloudFunction', 'score-applicant', "Scores an applicant from the form's answers."],
  ['CloudSecret', 'crm-api-key', "The CRM's API key, for score-applicant."],
  ['CustomDataForm', 'onboarding-details', 'Name and e-mail, as in the identity document.'],
  ['DefinitionTag', 'production', 'The version production journeys run.'],
];

/** A date-time by what the member bounds: a range's end is later than its start. */
function dateTimeFor(name: string | undefined): string {
  if (name && /^(to|end|until|validTo|notAfter|expir)/i.test(name)) return '2026-03-31T23:59:59.000Z';
  if (name && /^(from|start|validFrom|notBefore)/i.test(name)) return '2026-03-01T00:00:00.000Z';
  return AT;
}

function resolve(ref: string, ctx: ExampleContext): Json | undefined {
  return ref.startsWith(SCHEMA_REF) ? (ctx.components[ref.slice(SCHEMA_REF.length)] as Json | undefined) : undefined;
}

function fitString(value: string, schema: Json): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let out = value;
  while (out.length < min) out += value;
  return out.slice(0, max);
}

/** Values tried, in turn, where a member's pattern refuses the value its name gives. */
const BY_PATTERN = [
  '01JPC6Q8V4Z7R2M5N9K3T1W0XB', // a ULID (identity store user ids)
  'evt_01JPC6Q8V4Z7R2M5N9K3T1W0XB', // an event id
  'kq3v9Xw2pL8sT4mN6bR1yZ0aD5fG7hJ2uE4cV6nM8bQ', // a 43-character base64url secret (link capabilities)
  'identity-check',
  'Activity_capture_face',
  'demo.example',
  'APPROVE',
];

function matches(pattern: unknown, value: string): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}

function stringExample(name: string | undefined, schema: Json): unknown {
  const value = namedString(name, schema);
  if (matches(schema.pattern, value)) return value;
  return BY_PATTERN.find((candidate) => matches(schema.pattern, candidate)) ?? value;
}

function namedString(name: string | undefined, schema: Json): string {
  switch (schema.format) {
    case 'date-time':
      return dateTimeFor(name);
    case 'uuid':
      return (name && IDS[name]) ?? FALLBACK_ID;
    case 'uri':
      return 'https://bank.example/onboarding/done';
    case 'email':
      return 'ann.lee@example.com';
  }
  if (name && (typeof BY_NAME[name] === 'string' || typeof BY_NAME[name] === 'number')) return fitString(String(BY_NAME[name]), schema);
  if (name && IDS[name]) return IDS[name];
  return fitString(name ?? 'value', schema);
}

function numberExample(name: string | undefined, schema: Json): number {
  // zod's ±2^53-1 bounds of every integer are no bounds (the document builder drops them).
  const min = typeof schema.minimum === 'number' && schema.minimum !== -Number.MAX_SAFE_INTEGER ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' && schema.maximum !== Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  let value = name && typeof BY_NAME[name] === 'number' ? (BY_NAME[name] as number) : (min ?? (schema.type === 'integer' ? 1 : 0.93));
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  return value;
}

function isStructure(schema: Json, ctx: ExampleContext): boolean {
  const s = typeof schema.$ref === 'string' ? (resolve(schema.$ref, ctx) ?? {}) : schema;
  const options = [s, ...(((s.anyOf ?? s.oneOf ?? []) as Json[]))];
  return options.some((o) => o.type === 'object' || o.type === 'array' || (typeof o.$ref === 'string' && isStructure(o, ctx)));
}

/**
 * An example of `schema`, or undefined where none can be made (a `not`, an unresolved ref).
 * `depth` bounds recursive schemas; optional members are left out below the second level so
 * that an example stays readable.
 */
export function exampleOf(schema: unknown, ctx: ExampleContext, name?: string, depth = 0, required = true): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return undefined;
  const s = schema as Json;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('example' in s) return s.example;
  if ('const' in s) return s.const;
  if (typeof s.$ref === 'string') {
    const owner = s.$ref.startsWith(SCHEMA_REF) ? s.$ref.slice(SCHEMA_REF.length) : ctx.owner;
    return exampleOf(resolve(s.$ref, ctx), { ...ctx, ...(owner ? { owner } : {}) }, name, depth + 1, required);
  }
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ('default' in s && s.default !== undefined && depth > 0) return s.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) {
      const all = s[key] as Json[];
      const options = all.filter((o) => o.type !== 'null');
      // A structure that may be null: null, the plainer answer (the value shows in its own schema).
      if (options.length < all.length && options.every((o) => isStructure(o, ctx))) return null;
      // A member that is a value or a list of it: the value.
      return exampleOf(options[0] ?? all[0], ctx, name, depth, required);
    }
  }
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Json[]).map((p) => exampleOf(p, ctx, name, depth, required));
    return parts.every((p) => p && typeof p === 'object' && !Array.isArray(p)) ? Object.assign({}, ...(parts as Json[])) : parts[0];
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  // A list or a free-form record (no named members) the member's name knows an example of.
  if (name && name in BY_NAME && ((type === 'object' && !s.properties) || type === 'array' || BY_NAME[name] === null)) {
    const known = BY_NAME[name];
    if (type === 'array' ? Array.isArray(known) : known === null || (typeof known === 'object' && !Array.isArray(known))) return known;
  }
  switch (type) {
    case 'string': {
      const owned = ctx.owner ? NAME_BY_OWNER.find(([prefix]) => ctx.owner!.startsWith(prefix)) : undefined;
      const named = name === 'name' ? owned?.[1] : name === 'description' ? owned?.[2] : undefined;
      return named !== undefined && matches(s.pattern, named) ? fitString(named, s) : stringExample(name, s);
    }
    case 'integer':
    case 'number':
      return numberExample(name, s);
    case 'boolean':
      return name && typeof BY_NAME[name] === 'boolean' ? BY_NAME[name] : false;
    case 'null':
      return null;
    case 'array': {
      const item = exampleOf(s.items, ctx, name && name.endsWith('s') ? name.slice(0, -1) : name, depth + 1);
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      return item === undefined ? [] : Array.from({ length: Math.max(1, min) }, () => item);
    }
    case 'object':
    case undefined: {
      const props = (s.properties ?? {}) as Record<string, Json>;
      const needed = new Set((s.required ?? []) as string[]);
      if (!s.properties && type === undefined) return undefined;
      const out: Json = {};
      for (const [key, prop] of Object.entries(props)) {
        // Optional members: those of the top level only, and no nested structure among them.
        if (!needed.has(key) && (depth >= 2 || !required || isStructure(prop, ctx))) continue;
        const value = exampleOf(prop, ctx, key, depth + 1, needed.has(key));
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
  }
  return undefined;
}
