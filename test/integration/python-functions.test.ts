import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, finalStatus, issueToken, keyWith, latestSession, pageUntil, runJourney } from './client.js';

/**
 * The family's Python cloud functions over HTTP: uploaded as its deployment tools upload them
 * (`type`, `resource`, EDITABLE, then DEPLOYED_ACTIVE), run by Execute Cloud Function v1 and v2
 * in a journey drawn in its dialect (test/fixtures/bpmn/python-journey.bpmn), whose gateway and
 * data form read what the functions gave, where the family's read it.
 */
const FUNCTIONS = '/api/process-manager/cloudFunctions';
const DEFINITIONS = '/api/process-manager/processDefinitions';
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/bpmn/python-journey.bpmn'), 'utf8');
const fresh = () => Math.random().toString(36).slice(2, 10);
let token: string;
let definition: string;
const secretName = `py-key-${fresh()}`;
const secretValue = `pk-${fresh()}${fresh()}`;

/** Sets up `idv` for the journey, as SetupFlowData functions do. */
const SETUP = (secret: string) => `import json
from datetime import datetime, timezone

first = params["vars"].get("firstName", "")
email = params["vars"].get("email", "")
idv = {
    "config": {"assisted": "0"},
    "configSecrets": [${JSON.stringify(secret)}],
    "person": {"firstName": first.strip().title(), "email": email.lower()},
    "startedAt": datetime(2026, 11, 28, tzinfo=timezone.utc).isoformat(),
}
print("setting up the flow for", idv["person"]["firstName"])
results["executionVariables"] = {"idv": idv}
results["pass"] = True
`;

/** Verifies the email: a secret, hmac, a refused call to the metadata address, cfresults, a check and counters. */
const VERIFY = `import re, hmac, hashlib, json
import requests
from cfresults import Outcome, Result, OverallResult, OverallResultEncoder

idv = params["vars"]["idv"]
key = params["secrets"][idv["configSecrets"][0]]
email = idv["person"]["email"]
print("verifying", email, "with key", key)
ok = re.fullmatch(r"[^@\\s]+@[^@\\s]+\\.[a-z]{2,}", email) is not None and not email.endswith("@blocked.example")
signature = hmac.new(key.encode(), email.encode(), hashlib.sha256).hexdigest()
try:
    requests.get("http://169.254.169.254/latest/meta-data/", timeout=2)
    metadata = "reachable"
except requests.exceptions.ConnectionError as e:
    metadata = "refused"
overall = OverallResult(Outcome.APPROVE if ok else Outcome.DECLINE, {})
results["cfResults"] = json.loads(OverallResultEncoder().encode(overall))
results["pass"] = ok
results["doc"] = {"documentNumber": "D" + signature[:8].upper()}
results["metadata"] = metadata
results["metrics"] = {"counters": {"emailCheck": "passed" if ok else "failed", "notListed": "passed"}}
checks = params["vars"].get("_checks", {})
checks["emailCheck"] = {"outcome": "PASS" if ok else "FAIL", "valid": True, "metaData": {"email": email}}
idv["emailVerified"] = ok
results["executionVariables"] = {"idv": idv, "_checks": checks}
`;

/** Fails when the email was not verified: its exception is the step's error message. */
const EXPLODE = `idv = params["vars"]["idv"]
if not idv.get("emailVerified"):
    raise ValueError("email " + idv["person"]["email"] + " could not be verified")
results["pass"] = True
`;

/** The confirmation form, its default read where the family's forms read a function's results. */
const CONFIRM_FORM = JSON.stringify({
  title: { type: 'title', isValid: true, values: { en: 'Confirm your document' } },
  components: [
    {
      type: 'text',
      id: 'documentNumber',
      index: 0,
      label: { values: { en: 'Document number' } },
      default: '{{processvar._checks.cloudFunctions.PyVerifyEmail.metaData.ruleResults.doc.documentNumber }}',
      validate: { required: true },
    },
  ],
  submitButton: { values: { en: 'Continue' } },
  version: '1',
});

/** What went wrong, as the family's flows show it: the error route's errorMessage. */
const ERROR_FORM = JSON.stringify({
  title: { type: 'title', isValid: true, values: { en: 'We could not verify you' } },
  components: [{ type: 'text', id: 'reason', index: 0, label: { values: { en: 'Reason' } }, default: '{{processvar.errorMessage }}' }],
  submitButton: { values: { en: 'Close' } },
  version: '1',
});

/** Uploaded and activated as the family's tools do it. */
async function deployFunction(name: string, type: string, resource: string): Promise<{ id: string; version: number }> {
  const created = await call('POST', FUNCTIONS, { token, body: { name, description: `${name} (test)`, status: 'EDITABLE', type, resource } });
  expect(created.status, created.text).toBe(201);
  expect(created.json).toMatchObject({ name, type, status: 'EDITABLE', resource, format: 'PYTHON' });
  const activated = await call('POST', `${FUNCTIONS}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
  return created.json;
}

beforeAll(async () => {
  token = await adminToken();
  expect((await call('POST', '/api/process-manager/cloudSecrets', { token, body: { name: secretName, value: secretValue } })).status).toBe(201);
  await deployFunction('PySetup', 'PYTHON39V1', SETUP(secretName));
  await deployFunction('PyVerifyEmail', 'PYTHON312V2', VERIFY);
  // The step names version 1 of this one: the first upload of the name in this runtime.
  const names = await call('GET', `${FUNCTIONS}/PyExplode/versions?page=0&size=1&sort=version,desc`, { token });
  if (names.json.content.length === 0) await deployFunction('PyExplode', 'PYTHON39V1', EXPLODE);
  const form = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name: 'PyConfirm', description: 'python journey', status: 'DEPLOYED_ACTIVE', creationOption: 'NEW', resource: CONFIRM_FORM },
  });
  expect(form.status, form.text).toBe(201);
  const errorForm = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name: 'PyError', description: 'python journey', status: 'DEPLOYED_ACTIVE', creationOption: 'NEW', resource: ERROR_FORM },
  });
  expect(errorForm.status, errorForm.text).toBe(201);
  definition = `python-${fresh()}`;
  const created = await call('POST', DEFINITIONS, {
    token,
    body: { name: definition, serverType: 'CAMUNDA', resources: { bpmn: { data: Buffer.from(BPMN).toString('base64'), type: 'BPMN' } }, themeId: null },
  });
  expect(created.status, created.text).toBe(201);
  const activated = await call('POST', `${DEFINITIONS}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
}, 120_000);

async function start(email: string): Promise<{ id: string; url: URL }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `py-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: ' ann ', email } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  return { id: created.json.processInstanceId, url: new URL(created.json.redirectUrl) };
}

describe('Python cloud functions in a journey drawn in the family dialect', () => {
  it("v1 sets up idv, v2 verifies with a secret named by an expression; the gateway and the form read the results where the family's do", async () => {
    const { id, url } = await start('Ann@Example.com');
    const expected = `D${createHmac('sha256', secretValue).update('ann@example.com').digest('hex').slice(0, 8).toUpperCase()}`;
    const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'name="documentNumber"', {}, 60_000);
    expect(page).toContain(`value="${expected}"`);
    const sent = await call('POST', `/journey/${id}/steps/CDF01_confirm?c=${url.searchParams.get('c')}&lang=en`, {
      rawBody: new URLSearchParams({ documentNumber: expected }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(sent.status, sent.text).toBe(303);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const session = await latestSession('demo', id);
    expect(session.vars.idv).toMatchObject({ person: { firstName: 'Ann', email: 'ann@example.com' }, emailVerified: true, startedAt: '2026-11-28T00:00:00+00:00' });
    expect(session.vars.cloudFunctions.ruleExecutionResults.setup.ruleResults).toMatchObject({ pass: true });
    const verified = session.vars.cloudFunctions.ruleExecutionResults.verifyEmail.ruleResults;
    expect(verified).toMatchObject({ pass: true, metadata: 'refused', doc: { documentNumber: expected } });
    expect(session._checks.emailCheck).toEqual({ outcome: 'PASS', valid: true, metaData: { email: 'ann@example.com' } });
    expect(session._checks.cloudFunctions.PyVerifyEmail).toMatchObject({ valid: true, metaData: { ruleResults: verified } });
    expect(session._checks.cloudFunctions.PyVerifyEmail.outcome).toBe(verified.cfResults.outcome);

    // Report Log: per step, the secret masked in what the function printed.
    const logs = (await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token })).json.content as {
      activityId: string;
      ruleExecutionName: string;
      outcome: string;
      lines: { message: string }[];
    }[];
    expect(logs.map((l) => [l.activityId, l.ruleExecutionName, l.outcome])).toEqual([
      ['ECF01_setup', 'setup', 'SUCCEEDED'],
      ['ECF02_verify', 'verifyEmail', 'SUCCEEDED'],
    ]);
    const printed = JSON.stringify(logs);
    expect(printed).toContain('setting up the flow for Ann');
    expect(printed).toContain('verifying ann@example.com with key [secret]');
    expect(printed).not.toContain(secretValue);
  }, 120_000);

  it("takes FailedSyncRuleExecution's route when a function raises: its exception's type and line in errorMessage, its text in the log", async () => {
    const { id, url } = await start('bo@blocked.example');
    const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'name="reason"', {}, 60_000);
    // Its type and line; its text (which names the end user's email) only in the run's log, kept with the instance.
    expect(page).toContain('value="Cloud function &quot;PyExplode&quot; version 1 failed: ValueError (line 3); its log has the message"');
    const logs = JSON.stringify((await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token })).json);
    expect(logs).toContain('ValueError: email bo@blocked.example could not be verified');
    const sent = await call('POST', `/journey/${id}/steps/CDF01_error?c=${url.searchParams.get('c')}&lang=en`, {
      rawBody: new URLSearchParams({ reason: 'seen' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(sent.status, sent.text).toBe(303);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_ERROR');
    const session = await latestSession('demo', id);
    expect(session.vars.idv.emailVerified).toBe(false);
    expect(session.vars.errorCode).toBe('FailedSyncRuleExecution');
  }, 120_000);
});

describe('Python cloud functions, uploaded', () => {
  it('are read back as the family reads them: versions newest first, the script as resource', async () => {
    const name = `py-read-${fresh()}`;
    const first = await deployFunction(name, 'PYTHON39V1', 'results["n"] = 1\n');
    const second = await deployFunction(name, 'PYTHON39V1', 'results["n"] = 2\n');
    const versions = await call('GET', `${FUNCTIONS}/${name}/versions?sort=version,desc`, { token });
    expect(versions.json.content.map((v: { id: string; version: number; type: string }) => [v.id, v.version, v.type])).toEqual([
      [second.id, 2, 'PYTHON39V1'],
      [first.id, 1, 'PYTHON39V1'],
    ]);
    const read = await call('GET', `${FUNCTIONS}/${first.id}`, { token });
    expect(read.json).toMatchObject({ type: 'PYTHON39V1', resource: 'results["n"] = 1\n', modules: { 'function.py': 'results["n"] = 1\n' } });
  });

  it('are refused when they do not compile (line, column, message) or are over 20,000 characters, and nothing is stored', async () => {
    const name = `py-bad-${fresh()}`;
    const bad = await call('POST', FUNCTIONS, { token, body: { name, status: 'EDITABLE', type: 'PYTHON39V1', resource: 'x = 1\nif x == 1\n    results["a"] = 2\n' } });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([{ location: 'body.resource', message: "line 2, column 10: expected ':'" }]);
    const long = await call('POST', FUNCTIONS, { token, body: { name, status: 'EDITABLE', type: 'PYTHON312V2', resource: `#${'x'.repeat(20_000)}` } });
    expect(long.status).toBe(400);
    expect(long.json.details[0].message).toBe('the script is 20001 characters; at most 20000');
    expect((await call('POST', FUNCTIONS, { token, body: { name, type: 'PYTHON99', resource: 'x = 1' } })).status).toBe(400);
    expect((await call('GET', `${FUNCTIONS}/${name}/versions`, { token })).json.content).toEqual([]);
  });

  it('need the permission to add functions, whatever their language', async () => {
    const reader = await issueToken((await keyWith(['ProcessManager:getCloudFunctions'])).secret);
    const refused = await call('POST', FUNCTIONS, { token: reader, body: { name: `py-${fresh()}`, type: 'PYTHON39V1', resource: 'x = 1' } });
    expect(refused.status).toBe(403);
    // Another tenant's key reaches nothing of this one's: its upload is its own, its reads find none of these.
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${FUNCTIONS}/PyVerifyEmail/versions`, { tenant: 'other', token: theirs })).json.content).toEqual([]);
  });

  it('run v1 only for the Python 3.9 type, and show a run nothing of the service (its environment, its files)', async () => {
    const snoop = `snoop-${fresh()}`;
    await deployFunction(
      snoop,
      'PYTHON39V1',
      `import os
found = {"environ": sorted(os.environ.keys()), "secrets": sorted(params["secrets"].keys())}
for path in ["/proc/self/environ", "/etc/hostname", ${JSON.stringify(join(process.cwd(), 'package.json'))}]:
    try:
        with open(path) as f:
            found[path] = f.read()[:50]
    except Exception as e:
        found[path] = type(e).__name__
results["executionVariables"] = {"found": found}
`,
    );
    const py312 = `py312-${fresh()}`;
    await deployFunction(py312, 'PYTHON312V2', 'results["executionVariables"] = {"ran": True}\n');
    const journey = (fn: string, v: 1 | 2) => ({
      name: `py-v${v}-${fresh()}`,
      version: 1,
      retentionDays: 1,
      startActivityId: 'run',
      activities: {
        run: { type: `EXECUTE_CLOUD_FUNCTION_V${v}`, inputs: { 'Function Name': fn, 'Cloud Secrets': [secretName] }, next: 'pass', errorEvents: { 'Failed Sync Rule Execution': 'failed' } },
        pass: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      },
      ends: { failed: { error: 'functionFailed' } },
    });
    for (const [fn, version, status] of [
      [snoop, 1, 'COMPLETED_ENDED_SUCCESS'],
      // Its type is not v1's: the step fails; the same function runs in v2.
      [py312, 1, 'COMPLETED_ENDED_ERROR'],
      [py312, 2, 'COMPLETED_ENDED_SUCCESS'],
    ] as const) {
      const defn = journey(fn, version);
      const published = await call('POST', DEFINITIONS, { token, body: defn });
      expect(published.status, published.text).toBe(201);
      const run = await runJourney(token, defn.name, {});
      expect(run.status, fn).toBe(status);
      const session = await latestSession('demo', run.id);
      if (fn === snoop) {
        const found = session.vars.found as Record<string, unknown>;
        expect((found.environ as string[]).filter((k) => /AWS|SECRET|TOKEN|KEY|LOCAL|NODE/i.test(k))).toEqual([]);
        // The secret its step lists, and no other.
        expect(found.secrets).toEqual([secretName]);
        for (const [path, value] of Object.entries(found)) if (path.startsWith('/')) expect(value, path).toMatch(/^(FileNotFoundError|PermissionError|OSError)$/);
      } else if (version === 2) {
        expect(session.vars.ran).toBe(true);
      }
    }
  }, 120_000);
});
