import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, exampleNamed, issueToken, keyWith } from './client.js';

const BASE = '/api/process-manager/processDefinitions';
let token: string;
beforeAll(async () => {
  token = await adminToken();
});


const fresh = () => `it-${Math.random().toString(36).slice(2, 10)}`;

describe('GET /api/process-manager/processDefinitions', () => {
  it('lists the example journeys npm start published to the demo tenant, with name and version', async () => {
    const res = await call('GET', `${BASE}?size=1000`, { token });
    expect(res.status).toBe(200);
    const names = res.json.content.map((d: { name: string; version: number }) => `${d.name} v${d.version}`);
    expect(names).toEqual(expect.arrayContaining(['identity-check v1', 'passcode-registration v1']));
  });
});

describe('POST /api/process-manager/processDefinitions', () => {
  it('publishes a version with defaults applied and reads it back', async () => {
    const body = exampleNamed(fresh());
    delete body.retentionDays;
    const res = await call('POST', BASE, { token, body });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: body.name, version: 1, retentionDays: 90, startActivityId: 'personalDetails' });
    expect(res.headers.location).toBe(`${BASE}/${res.json.id}`);
    const read = await call('GET', `${BASE}/${res.json.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.json.activities.captureFace.type).toBe('CAPTURE_FACE_IMAGE');
  });

  it('keeps a published version immutable (409) and takes the next version', async () => {
    const name = fresh();
    expect((await call('POST', BASE, { token, body: exampleNamed(name) })).status).toBe(201);
    const again = await call('POST', BASE, { token, body: exampleNamed(name) });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('PROCESS_DEFINITION_EXISTS');
    expect((await call('POST', BASE, { token, body: exampleNamed(name, 2) })).status).toBe(201);
  });

  it('refuses a definition that breaks a catalogue rule with a 400 naming the activity and the input', async () => {
    const body = exampleNamed(fresh());
    body.activities.personalDetails.inputs['Step Timeout (Seconds)'] = 'soon';
    const res = await call('POST', BASE, { token, body });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.details)).toContain('personalDetails');
    expect(JSON.stringify(res.json.details)).toContain('Step Timeout (Seconds)');
    const dangling = exampleNamed(fresh());
    dangling.activities.captureFace.next = 'nowhere';
    const res2 = await call('POST', BASE, { token, body: dangling });
    expect(res2.status).toBe(400);
    expect(JSON.stringify(res2.json.details)).toContain('captureFace');
  });

  it('refuses an unknown activity type and an unknown input', async () => {
    const unknownType = exampleNamed(fresh());
    unknownType.activities.captureFace.type = 'TELEPORT';
    expect((await call('POST', BASE, { token, body: unknownType })).status).toBe(400);
    const unknownInput = exampleNamed(fresh());
    unknownInput.activities.captureFace.inputs.Colour = 'blue';
    const res = await call('POST', BASE, { token, body: unknownInput });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.details)).toContain('Colour');
  });

  it('needs the addProcessDefinition permission', async () => {
    const { secret } = await keyWith(['ProcessManager:getProcessDefinitions']);
    const reader = await issueToken(secret);
    expect((await call('POST', BASE, { token: reader, body: exampleNamed(fresh()) })).status).toBe(403);
    expect((await call('GET', BASE, { token: reader })).status).toBe(200);
  });

  it("keeps tenants' definitions apart", async () => {
    const mine = await call('POST', BASE, { token, body: exampleNamed(fresh()) });
    const { secret } = await keyWith(['ProcessManager:getProcessDefinitions'], {}, 'other');
    const theirs = await issueToken(secret, 'other');
    expect((await call('GET', `${BASE}/${mine.json.id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    const list = await call('GET', `${BASE}?size=1000`, { tenant: 'other', token: theirs });
    expect(list.json.content.map((d: { id: string }) => d.id)).not.toContain(mine.json.id);
  });
});

describe('definition tags', () => {
  it('puts a tag on a definition, lists it with processDefinitionId, and moves it when posted on another', async () => {
    const name = fresh();
    const v1 = (await call('POST', BASE, { token, body: exampleNamed(name) })).json;
    const v2 = (await call('POST', BASE, { token, body: exampleNamed(name, 2) })).json;
    const tag = `live-${fresh()}`;
    const put = await call('POST', `${BASE}/${v1.id}/tags`, { token, body: { tags: [tag] } });
    expect(put.status).toBe(201);
    expect(put.json).toEqual([expect.objectContaining({ name: tag, processDefinitionId: v1.id, processDefinitionVersion: 1 })]);
    const moved = await call('POST', `${BASE}/${v2.id}/tags`, { token, body: { tags: [tag] } });
    expect(moved.json[0].processDefinitionId).toBe(v2.id);
    const all = await call('GET', `${BASE}/tags`, { token });
    expect(all.status).toBe(200);
    const mine = all.json.filter((t: { name: string }) => t.name === tag);
    expect(mine).toEqual([expect.objectContaining({ processDefinitionId: v2.id })]);
  });

  it('refuses a malformed tag and an unknown definition', async () => {
    const def = (await call('POST', BASE, { token, body: exampleNamed(fresh()) })).json;
    expect((await call('POST', `${BASE}/${def.id}/tags`, { token, body: { tags: ['has space'] } })).status).toBe(400);
    expect((await call('POST', `${BASE}/${def.id}/tags`, { token, body: { tags: [] } })).status).toBe(400);
    expect((await call('POST', `${BASE}/00000000-0000-4000-8000-000000000000/tags`, { token, body: { tags: ['x'] } })).status).toBe(404);
  });
});
