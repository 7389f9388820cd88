import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../support/zip.js';
import { adminToken, call, finalStatus, issueToken, pageUntil } from './client.js';

/**
 * A custom page step over HTTP (the browser side is test/e2e/custom-page.test.ts): the journey
 * page frames the page from the pages origin and its CSP allows that frame and no other; a
 * SEND the step cannot keep is refused and the step keeps waiting; a page the tenant does not
 * have (another tenant's among them) ends the journey under CustomPageNotFound.
 */
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/e2e/custom-pages.bpmn'), 'utf8');
const fresh = () => Math.random().toString(36).slice(2, 8);
let token: string;


async function uploadPage(name: string, as = token): Promise<{ id: string; version: number }> {
  const archive = (await zipOf({ 'index.html': '<!doctype html><p>page</p>' })).toString('base64');
  const created = await call('POST', '/api/theme-server/customPages', { token: as, tenant: as === token ? 'demo' : 'other', body: { name, archive, creationOption: 'Save & Deploy' } });
  expect(created.status, created.text).toBe(201);
  const active = await call('POST', `/api/theme-server/customPages/${created.json.id}/status/DEPLOYED_ACTIVE`, { token: as, tenant: as === token ? 'demo' : 'other' });
  expect(active.status, active.text).toBe(200);
  return created.json;
}

/** The fixture's journey with its pages renamed; `version` for the first. */
async function publishWith(first: string, second: string, version: number | ''): Promise<string> {
  const bpmn = BPMN.replace('>E2EPageName<', `>${first}<`).replace('>E2EPageConsent<', `>${second}<`).replace('${NAME_VERSION}', version === '' ? '' : `\${${version}}`);
  const name = `cp-journey-${fresh()}`;
  const up = await call('POST', '/api/process-manager/processDefinitions', { token, body: { name, resources: { bpmn: { data: Buffer.from(bpmn).toString('base64'), type: 'BPMN' } } } });
  expect(up.status, up.text).toBe(201);
  const on = await call('POST', `/api/process-manager/processDefinitions/${up.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(on.status, on.text).toBe(200);
  return name;
}

async function start(definition: string): Promise<{ id: string; path: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `cp-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ada' } } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  return { id: created.json.processInstanceId, path: `${url.pathname}${url.search}&lang=en` };
}

const post = (path: string, fields: Record<string, string>) =>
  call('POST', path, { rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

/** A journey of two fresh pages of the tenant (the first by its version, the second the latest active one), started. */
async function journeyOfTwoPages(): Promise<{ id: string; path: string }> {
  const a = `CpA${fresh()}`;
  const b = `CpB${fresh()}`;
  const page = await uploadPage(a);
  await uploadPage(b);
  return start(await publishWith(a, b, page.version));
}

beforeAll(async () => {
  token = await adminToken();
});

describe('a custom page step over HTTP', () => {
  it('frames the page from the pages origin, with a CSP that allows that frame and nothing more', async () => {
    const { path } = await journeyOfTwoPages();
    const html = await pageUntil(path, 'id="custom-page"');
    const src = /<iframe id="custom-page"[^>]* src="([^"]+)"/.exec(html)![1]!;
    expect(src).toMatch(/^http:\/\/pages\.localhost:\d+\/tenants\/demo\/custom-pages\/[^/]+\/[0-9a-f]{32}\/index\.html$/);
    const shown = await call('GET', path);
    const csp = String(shown.headers['content-security-policy']);
    expect(csp).toContain(`frame-src ${new URL(src).origin}`);
    expect(csp.match(/frame-src/g)).toHaveLength(1);
    expect(csp).toContain("frame-ancestors 'none'");
    // The frame's page itself is served from the pages origin, without a token.
    const framed = await call('GET', new URL(src).pathname, { host: new URL(src).host });
    expect(framed.status).toBe(200);
    // And only journey pages (the tenant hosts) may frame it.
    expect(framed.headers['content-security-policy']).toBe(`frame-ancestors http://*.fir.localhost:${new URL(src).port}`);
    // Other journey pages frame nothing.
    const other = await call('GET', '/journey/unknown?c=x');
    expect(String(other.headers['content-security-policy'])).not.toContain('frame-src');
  });

  it('refuses a SEND it cannot keep, keeps the step waiting and says why; a good one goes on', async () => {
    const { path } = await journeyOfTwoPages();
    await pageUntil(path, 'id="custom-page"');
    const step = path.replace(/\?/, '/steps/CPG01_name?');
    for (const fields of [{ 'var:a': '1' }, { 'arthr:event': 'SEND', 'var:a.b': '1' }, { 'arthr:event': 'SEND', 'var:$replace': '1' }] as Record<string, string>[]) {
      const refused = await post(step, fields);
      expect(refused.status).toBe(303);
      const again = await call('GET', path);
      expect(again.text).toMatch(/<div id="custom-page-problem" class="note note-error" role="alert">/);
      expect(again.text).toContain('src="http://pages.localhost');
    }
    const sent = await post(step, { 'arthr:event': 'SEND', 'var:preferredName': 'Ada', 'var:goback': 'false' });
    expect(sent.status).toBe(303);
    // On to the second page (latest active version, no version named).
    await pageUntil(path, 'steps/CPG01_consent');
  });

  it("ends the journey under CustomPageNotFound for a page the tenant does not have, another tenant's too", async () => {
    const otherToken = await issueToken((await import('vitest')).inject('otherKey'), 'other');
    const theirs = `CpTheirs${fresh()}`;
    await uploadPage(theirs, otherToken);
    const { id } = await start(await publishWith(theirs, theirs, ''));
    expect(await finalStatus(id, token)).toBe('COMPLETED_PROCESS_ERROR');
    // (The failure's name, CustomPageNotFound, is the unit test's: the API shows no execution error.)
  });
});
