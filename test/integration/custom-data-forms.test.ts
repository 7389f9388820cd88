import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESOURCE_BYTES } from '../../functions/process-manager/forms/custom-data-form-schemas.js';
import { adminToken, call, issueToken, keyWith } from './client.js';

const BASE = '/api/process-manager/customDataForms';
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `form-${Math.random().toString(36).slice(2, 10)}`;

/** A form as the family's designer writes it, with members this service does not use. */
function familyForm(): Record<string, any> {
  return {
    title: { values: { en: 'About you', de: 'Über Sie' } },
    subtitle: { values: { en: 'We need a few details' } },
    components: [
      { type: 'paragraph', id: 'intro', label: { values: { en: 'Please fill in the form.' } } },
      {
        type: 'text',
        id: 'firstName',
        label: { values: { en: 'First name' } },
        default: '',
        readOnly: false,
        validate: {
          required: true,
          minLength: '2',
          maxLength: 50,
          missingMessage: { values: { en: 'Enter your first name' } },
          invalidLengthMessage: { values: { en: '2 to 50 characters' } },
        },
        designerLayout: { column: 1, row: 2 },
      },
      { type: 'email', id: 'email', label: { values: { en: 'Email' } }, validate: { required: 'true', invalidMessage: { values: { en: 'Not an email' } } } },
      { type: 'phone', id: 'mobile', label: { values: { en: 'Mobile' } }, defaultCountry: 'GB', subtype: 'mobile' },
      { type: 'image', id: 'logo', src: 'https://example.com/logo.png', alt: 'Logo', width: '50%' },
      { type: 'notification', id: 'note', subtype: 'info', label: { values: { en: 'Your data is safe.' } } },
      {
        type: 'select',
        id: 'document',
        label: { values: { en: 'Document' } },
        values: [
          { value: 'passport', label: { values: { en: 'Passport' } } },
          { value: 'idcard', label: { values: { en: 'ID card' } } },
        ],
      },
    ],
    submitButton: { values: { en: 'Continue' } },
    version: 1,
    designerMeta: { tool: 'designer', exportedAt: '2026-01-01' },
  };
}

function body(name: string, extra: Record<string, unknown> = {}, form: Record<string, unknown> = familyForm()) {
  return { name, description: 'Personal details', status: 'DRAFT', creationOption: 'NEW', resource: JSON.stringify(form), ...extra };
}

async function add(name: string, extra: Record<string, unknown> = {}, form?: Record<string, unknown>) {
  const res = await call('POST', BASE, { token, body: body(name, extra, form) });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe('POST /api/process-manager/customDataForms', () => {
  it('stores a version given as a numeric string, with the resource exactly as sent, and reads it back by id', async () => {
    const name = fresh();
    const sent = body(name, { version: '2', tenantId: 'demo', unknownMember: 'ignored' });
    const res = await call('POST', BASE, { token, body: sent });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name, version: 2, status: 'DRAFT', description: 'Personal details', creationOption: 'NEW' });
    expect(res.json.resource).toBe(sent.resource);
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.createdBy).toMatch(/^apikey:/);
    expect(res.headers.location).toBe(`${BASE}/${res.json.id}`);
    const read = await call('GET', `${BASE}/${res.json.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: res.json.id, name, version: 2, status: 'DRAFT' });
    // Members the service does not use are kept: the family's designer reads its own back.
    expect(read.json.resource).toBe(sent.resource);
    const form = JSON.parse(read.json.resource);
    expect(form.designerMeta).toEqual({ tool: 'designer', exportedAt: '2026-01-01' });
    expect(form.components[1].designerLayout).toEqual({ column: 1, row: 2 });
  });

  it('assigns the next version of the name when none is given, and keeps a name + version immutable (409)', async () => {
    const name = fresh();
    expect((await add(name)).version).toBe(1);
    expect((await add(name, { version: null })).version).toBe(2);
    expect((await add(name, { version: 5 })).version).toBe(5);
    expect((await add(name)).version).toBe(6);
    const again = await call('POST', BASE, { token, body: body(name, { version: '5' }) });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('CUSTOM_DATA_FORM_EXISTS');
  });

  it('gives concurrent additions without a version distinct versions', async () => {
    const name = fresh();
    const all = await Promise.all([0, 1, 2].map(() => call('POST', BASE, { token, body: body(name) })));
    expect(all.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(all.map((r) => r.json.version).sort()).toEqual([1, 2, 3]);
  });

  it('refuses bad forms with a 400 naming the member inside the resource', async () => {
    const problems: [string, (f: Record<string, any>) => void, string][] = [
      ['an uncoercible type', (f) => (f.components[1].validate.required = 'yes'), 'body.resource.components.1.validate.required'],
      ['a non-numeric length', (f) => (f.components[1].validate.maxLength = 'long'), 'body.resource.components.1.validate.maxLength'],
      ['an over-long text', (f) => (f.components[1].label.values.en = 'x'.repeat(5001)), 'body.resource.components.1.label.values.en'],
      ['no components', (f) => (f.components = []), 'body.resource.components'],
      ['a language map for a choice list', (f) => (f.components[6].values = { en: 'Passport' }), 'body.resource.components.6.values'],
      ['a template of anything but a process variable', (f) => (f.components[1].default = '{{env.SECRET}}'), 'body.resource.components.1.default'],
      ['an unknown component type', (f) => (f.components[0].type = 'hologram'), 'body.resource.components.0.type'],
      ['minLength over maxLength', (f) => (f.components[1].validate.minLength = 60), 'body.resource.components.1.validate.minLength'],
      ['a script image source', (f) => (f.components[4].src = 'javascript:alert(1)'), 'body.resource.components.4.src'],
    ];
    for (const [what, spoil, location] of problems) {
      const form = familyForm();
      spoil(form);
      const res = await call('POST', BASE, { token, body: body(fresh(), {}, form) });
      expect(res.status, what).toBe(400);
      expect(res.json.code, what).toBe('VALIDATION_FAILED');
      expect(res.json.details.map((d: { location: string }) => d.location), what).toContain(location);
    }
  });

  it('refuses a resource that is not JSON, a bad version and a bad name, naming each', async () => {
    const notJson = await call('POST', BASE, { token, body: { name: fresh(), resource: '{"title": ' } });
    expect(notJson.status).toBe(400);
    expect(notJson.json.details).toEqual([expect.objectContaining({ location: 'body.resource' })]);
    const array = await call('POST', BASE, { token, body: { name: fresh(), resource: '[]' } });
    expect(array.json.details).toEqual([expect.objectContaining({ location: 'body.resource' })]);
    const badVersion = await call('POST', BASE, { token, body: body(fresh(), { version: 'two' }) });
    expect(badVersion.status).toBe(400);
    expect(badVersion.json.details.map((d: { location: string }) => d.location)).toContain('body.version');
    const badName = await call('POST', BASE, { token, body: body('a/b') });
    expect(badName.json.details.map((d: { location: string }) => d.location)).toContain('body.name');
    const archived = await call('POST', BASE, { token, body: body(fresh(), { status: 'ARCHIVED' }) });
    expect(archived.json.details.map((d: { location: string }) => d.location)).toContain('body.status');
  });
});

/** test/fixtures/forms/family-builder.json: a form as the family's visual builder saves it. */
const builderResource = readFileSync(join(import.meta.dirname, '../fixtures/forms/family-builder.json'), 'utf8');

/** The versions stored under a name (none after a refused upload). */
async function versionsOf(name: string): Promise<number> {
  const page = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token });
  expect(page.status).toBe(200);
  return page.json.totalElements;
}

describe("a form from the family's visual builder", () => {
  it('is stored as sent: a string version, builder members, language maps, repeated ids and template defaults', async () => {
    const name = fresh();
    const res = await call('POST', BASE, { token, body: { name, version: '1', status: 'DRAFT', creationOption: 'NEW', resource: builderResource, tenantId: 'demo' } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name, version: 1 });
    const read = await call('GET', `${BASE}/${res.json.id}`, { token });
    expect(read.json.resource).toBe(builderResource);
  });

  it('refuses a template default that points outside the journey, naming components.<i>.default, and stores nothing', async () => {
    const bad = ['{{env.SECRET}}', '{{processvar.__proto__}}', '{{processvar.a..b}}', '{{ processvar.x }} trailing text'];
    for (const template of bad) {
      const form = JSON.parse(builderResource);
      form.components[5].default = template;
      const name = fresh();
      const res = await call('POST', BASE, { token, body: { name, resource: JSON.stringify(form) } });
      expect(res.status, template).toBe(400);
      expect(res.json.code, template).toBe('VALIDATION_FAILED');
      expect(res.json.details, template).toEqual([expect.objectContaining({ location: 'body.resource.components.5.default', message: expect.stringContaining('{{processvar.a.b.c}}') })]);
      expect(await versionsOf(name), template).toBe(0);
    }
  });
});

describe('the size of a form', () => {
  /** The builder form padded (with a member the service keeps and ignores) to exactly `bytes` of UTF-8. */
  function formOfBytes(bytes: number): string {
    const form = { ...JSON.parse(builderResource), padding: '' };
    const base = Buffer.byteLength(JSON.stringify(form), 'utf8');
    form.padding = 'x'.repeat(bytes - base);
    const resource = JSON.stringify(form);
    expect(Buffer.byteLength(resource, 'utf8')).toBe(bytes);
    return resource;
  }

  it(`takes a resource of ${MAX_RESOURCE_BYTES} bytes and refuses one byte more with 400, storing nothing`, async () => {
    const name = fresh();
    const largest = await call('POST', BASE, { token, body: { name, resource: formOfBytes(MAX_RESOURCE_BYTES) } });
    expect(largest.status, largest.text.slice(0, 300)).toBe(201);
    const over = await call('POST', BASE, { token, body: { name, resource: formOfBytes(MAX_RESOURCE_BYTES + 1) } });
    expect(over.status).toBe(400);
    expect(over.json.code).toBe('VALIDATION_FAILED');
    expect(over.json.details).toContainEqual({ location: 'body.resource', message: `must be at most ${MAX_RESOURCE_BYTES} bytes` });
    expect(await versionsOf(name)).toBe(1);
  });

  it('refuses a 2 MB form with 413 PAYLOAD_TOO_LARGE before reading it, and stores nothing', async () => {
    const name = fresh();
    const res = await call('POST', BASE, { token, body: { name, resource: formOfBytes(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.json.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.json.message).toMatch(/at most 393216/);
    expect(await versionsOf(name)).toBe(0);
  });
});

describe('GET /api/process-manager/customDataForms/{name}/versions', () => {
  it('pages and sorts the versions of one name, the latest first with sort=version,desc', async () => {
    const name = fresh();
    for (let i = 0; i < 3; i++) await add(name);
    await add(fresh());
    const latest = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(latest.status).toBe(200);
    expect(latest.json).toMatchObject({ totalElements: 3, totalPages: 3, number: 0, size: 1, numberOfElements: 1, first: true, last: false });
    expect(latest.json.content[0]).toMatchObject({ name, version: 3, status: 'DRAFT' });
    expect(latest.json.content[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(latest.json.content[0].resource).toBeUndefined();
    const all = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token });
    expect(all.json.content.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    const second = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?page=1&size=2`, { token });
    expect(second.json.content.map((v: { version: number }) => v.version)).toEqual([3]);
    expect(second.json.last).toBe(true);
    const none = await call('GET', `${BASE}/${fresh()}/versions`, { token });
    expect(none.json).toMatchObject({ totalElements: 0, content: [] });
    expect((await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?sort=colour`, { token })).status).toBe(400);
  });

  it('takes a name with spaces and letters of any script', async () => {
    const name = `Persönliche Daten ${fresh()}`;
    const made = await add(name, { version: '1' });
    const page = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token });
    expect(page.json.content.map((v: { id: string }) => v.id)).toEqual([made.id]);
  });
});

describe('POST /api/process-manager/customDataForms/{id}/status/{status}', () => {
  it('moves a version along its lifecycle, shows it in the versions list, and refuses what is not allowed', async () => {
    const name = fresh();
    const form = await add(name);
    const to = (status: string, id = form.id) => call('POST', `${BASE}/${id}/status/${status}`, { token });
    const active = await to('DEPLOYED_ACTIVE');
    expect(active.status).toBe(200);
    expect(active.json).toMatchObject({ id: form.id, status: 'DEPLOYED_ACTIVE', resource: form.resource });
    expect((await call('GET', `${BASE}/${form.id}`, { token })).json.status).toBe('DEPLOYED_ACTIVE');
    const listed = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token });
    expect(listed.json.content[0].status).toBe('DEPLOYED_ACTIVE');
    // Setting the status it has changes nothing; deployment tools re-run.
    expect((await to('DEPLOYED_ACTIVE')).status).toBe(200);
    const back = await to('DRAFT');
    expect(back.status).toBe(400);
    expect(back.json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await to('DEPLOYED_INACTIVE')).json.status).toBe('DEPLOYED_INACTIVE');
    expect((await to('DEPLOYED_ACTIVE')).json.status).toBe('DEPLOYED_ACTIVE');
    expect((await to('ARCHIVED')).json.status).toBe('ARCHIVED');
    const revived = await to('DEPLOYED_ACTIVE');
    expect(revived.status).toBe(400);
    expect(revived.json.code).toBe('INVALID_STATUS_TRANSITION');
    expect(revived.json.message).toContain('final');
  });

  it('takes EDITABLE, the family\u2019s draft, on create: it reads EDITABLE and moves as a DRAFT', async () => {
    const name = fresh();
    const form = await add(name, { status: 'EDITABLE' });
    expect(form.status).toBe('EDITABLE');
    expect((await call('GET', `${BASE}/${form.id}`, { token })).json.status).toBe('EDITABLE');
    expect((await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token })).json.content[0].status).toBe('EDITABLE');
    const to = (status: string) => call('POST', `${BASE}/${form.id}/status/${status}`, { token });
    expect((await to('EDITABLE')).json.status).toBe('EDITABLE');
    expect((await to('DEPLOYED_INACTIVE')).json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await to('DRAFT')).json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await to('DEPLOYED_ACTIVE')).json.status).toBe('DEPLOYED_ACTIVE');
    expect((await to('EDITABLE')).json.code).toBe('INVALID_STATUS_TRANSITION');
    for (const bad of ['ARCHIVED', 'LIVE']) {
      const res = await call('POST', BASE, { token, body: body(fresh(), { status: bad }) });
      expect(res.status, bad).toBe(400);
      expect(res.json.details.map((d: { location: string }) => d.location)).toContain('body.status');
    }
  });

  it('refuses an unknown status and an unknown form', async () => {
    const form = await add(fresh());
    const skipped = await call('POST', `${BASE}/${form.id}/status/DEPLOYED_INACTIVE`, { token });
    expect(skipped.status, 'a DRAFT is activated or archived, as a definition').toBe(400);
    expect(skipped.json.code).toBe('INVALID_STATUS_TRANSITION');
    const unknown = await call('POST', `${BASE}/${form.id}/status/LIVE`, { token });
    expect(unknown.status).toBe(400);
    expect(unknown.json.details.map((d: { location: string }) => d.location)).toContain('path.status');
    const missing = await call('POST', `${BASE}/00000000-0000-4000-8000-000000000000/status/ARCHIVED`, { token });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('CUSTOM_DATA_FORM_NOT_FOUND');
    expect((await call('GET', `${BASE}/not-a-uuid`, { token })).status).toBe(400);
    expect((await call('GET', `${BASE}/00000000-0000-4000-8000-000000000000`, { token })).status).toBe(404);
  });
});

describe('data form permissions and tenants', () => {
  it('needs addCustomDataForm to add, getCustomDataForms to read and updateCustomDataForm to change a status', async () => {
    const form = await add(fresh());
    const reader = await issueToken((await keyWith(['ProcessManager:getCustomDataForms'])).secret);
    expect((await call('GET', `${BASE}/${form.id}`, { token: reader })).status).toBe(200);
    expect((await call('GET', `${BASE}/${encodeURIComponent(form.name)}/versions`, { token: reader })).status).toBe(200);
    const refused = await call('POST', BASE, { token: reader, body: body(fresh()) });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('MISSING_PERMISSION');
    expect((await call('POST', `${BASE}/${form.id}/status/DEPLOYED_ACTIVE`, { token: reader })).status).toBe(403);
    const writer = await issueToken((await keyWith(['ProcessManager:addCustomDataForm', 'ProcessManager:updateCustomDataForm'])).secret);
    expect((await call('GET', `${BASE}/${form.id}`, { token: writer })).status).toBe(403);
    expect((await call('POST', `${BASE}/${form.id}/status/DEPLOYED_ACTIVE`, { token: writer })).status).toBe(200);
    expect((await call('POST', BASE, { token: writer, body: body(fresh()) })).status).toBe(201);
  });

  it("keeps tenants' forms apart: another tenant's form is 404 and its names list nothing", async () => {
    const name = fresh();
    const mine = await add(name);
    const { secret } = await keyWith(['ProcessManager:getCustomDataForms', 'ProcessManager:updateCustomDataForm', 'ProcessManager:addCustomDataForm'], {}, 'other');
    const theirs = await issueToken(secret, 'other');
    const read = await call('GET', `${BASE}/${mine.id}`, { tenant: 'other', token: theirs });
    expect(read.status).toBe(404);
    expect(read.json.code).toBe('CUSTOM_DATA_FORM_NOT_FOUND');
    expect((await call('POST', `${BASE}/${mine.id}/status/ARCHIVED`, { tenant: 'other', token: theirs })).status).toBe(404);
    const versions = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { tenant: 'other', token: theirs });
    expect(versions.json.totalElements).toBe(0);
    // The same name is free in the other tenant, and starts at version 1 there.
    const own = await call('POST', BASE, { tenant: 'other', token: theirs, body: body(name) });
    expect(own.status).toBe(201);
    expect(own.json.version).toBe(1);
    expect((await call('GET', `${BASE}/${mine.id}`, { token })).json.status).toBe('DRAFT');
  });
});
