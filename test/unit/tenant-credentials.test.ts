import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { KEPT_TENANT_SESSIONS, tenantCredentials } from '../../functions/adapters/tenant-credentials.js';
import { resetConfigForTests } from '../../functions/config.js';
import { defineRoute } from '../../functions/http/route.js';
import { apiHandler } from '../../functions/http/wrapper.js';
import { enterTenant, inTenantScope, scopedTenant, TENANT_SESSION_TAG } from '../../functions/shared/tenant-scope.js';
import { dynamo, KEPT_TENANT_CLIENTS } from '../../functions/store/client.js';

// Acting for one tenant on AWS: the tenant role assumed per tenant with its session tag, kept
// until shortly before it expires; storage calling as that session; the wrapper naming the
// request's tenant. STS is aws-sdk-client-mock's, failing the ways STS fails.

const ROLE = 'arn:aws:iam::111122223333:role/arthr-fir-getProcessInstance/tenant/Role';
const sts = mockClient(STSClient);
const creds = (minutes = 60, key = 'ASIA1') => ({
  Credentials: { AccessKeyId: key, SecretAccessKey: 'secret', SessionToken: 'token', Expiration: new Date(Date.now() + minutes * 60_000) },
});
const source = () => tenantCredentials({ roleArn: ROLE, sts: async () => new STSClient({ region: 'eu-west-1' }) });
const assumed = () => sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input);

beforeEach(() => {
  sts.reset();
});
afterAll(() => {
  sts.restore();
});

describe('tenant credentials', () => {
  it("assume the tenant role with the tenant's tag and a session named after it, once while they last", async () => {
    sts.on(AssumeRoleCommand).resolves(creds());
    const forTenant = source();
    const first = await forTenant('alpha');
    expect(first).toMatchObject({ accessKeyId: 'ASIA1', secretAccessKey: 'secret', sessionToken: 'token' });
    await forTenant('alpha');
    await Promise.all([forTenant('beta'), forTenant('beta')]);
    expect(assumed()).toEqual([
      { RoleArn: ROLE, RoleSessionName: 'arthr-alpha', DurationSeconds: 3600, Tags: [{ Key: TENANT_SESSION_TAG, Value: 'alpha' }] },
      { RoleArn: ROLE, RoleSessionName: 'arthr-beta', DurationSeconds: 3600, Tags: [{ Key: TENANT_SESSION_TAG, Value: 'beta' }] },
    ]);
  });

  it('renew a session that ends within five minutes', async () => {
    sts.on(AssumeRoleCommand).resolvesOnce(creds(4, 'OLD')).resolves(creds(60, 'NEW'));
    const forTenant = source();
    expect((await forTenant('alpha')).accessKeyId).toBe('OLD');
    expect((await forTenant('alpha')).accessKeyId).toBe('NEW');
    expect((await forTenant('alpha')).accessKeyId).toBe('NEW');
    expect(assumed()).toHaveLength(2);
  });

  it('keep no failure: a throttled or refused AssumeRole is tried again by the next ask', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } });
    const denied = Object.assign(new Error('not authorized to perform sts:TagSession'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    sts.on(AssumeRoleCommand).rejectsOnce(throttled).rejectsOnce(denied).resolves(creds());
    const forTenant = source();
    await expect(forTenant('alpha')).rejects.toMatchObject({ name: 'Throttling' });
    await expect(forTenant('alpha')).rejects.toMatchObject({ name: 'AccessDenied' });
    expect((await forTenant('alpha')).accessKeyId).toBe('ASIA1');
    expect(assumed()).toHaveLength(3);
  });

  it('refuse an answer without a whole set of credentials', async () => {
    sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'A', SecretAccessKey: 's', SessionToken: undefined as never, Expiration: new Date() } });
    await expect(source()('alpha')).rejects.toThrow('STS returned no credentials');
  });

  it('make no session for what cannot be a tenant id (a wildcard, a separator, an empty string)', async () => {
    sts.on(AssumeRoleCommand).resolves(creds());
    const forTenant = source();
    for (const id of ['', '*', 'alpha#beta', 'a?', 'Alpha', 'x'.repeat(64)]) await expect(forTenant(id), id).rejects.toThrow('not a tenant id');
    expect(assumed()).toEqual([]);
  });

  it(`keep the ${KEPT_TENANT_SESSIONS} most recently used tenants' sessions`, async () => {
    sts.on(AssumeRoleCommand).resolves(creds());
    const forTenant = source();
    for (let i = 0; i <= KEPT_TENANT_SESSIONS; i++) await forTenant(`t${i}`);
    await forTenant(`t${KEPT_TENANT_SESSIONS}`);
    expect(assumed()).toHaveLength(KEPT_TENANT_SESSIONS + 1);
    await forTenant('t0');
    expect(assumed()).toHaveLength(KEPT_TENANT_SESSIONS + 2);
  });
});

describe('storage acting for a tenant (TENANT_ROLE_ARN set)', () => {
  const ddb = mockClient(DynamoDBClient);
  beforeEach(() => {
    Object.assign(process.env, { TABLE_NAME: 't', TENANT_ROLE_ARN: ROLE, AWS_REGION: 'eu-west-1' });
    delete process.env.DYNAMODB_ENDPOINT;
    resetConfigForTests();
    ddb.reset();
  });
  afterAll(() => {
    delete process.env.TENANT_ROLE_ARN;
    resetConfigForTests();
    ddb.restore();
  });

  it('refuses work that names no tenant, before any call', async () => {
    await expect(dynamo()).rejects.toThrow('this function acts only for a tenant');
    await expect(inTenantScope(() => dynamo())).rejects.toThrow('this function acts only for a tenant');
    expect(ddb.calls()).toHaveLength(0);
    expect(assumed()).toEqual([]);
  });

  it("calls with the scope's tenant's session: one client per tenant, its credentials the tenant's", async () => {
    sts.on(AssumeRoleCommand).callsFake((input: { Tags: { Value: string }[] }) => creds(60, `KEY-${input.Tags[0]!.Value}`));
    const [a1, a2, b] = await Promise.all([inTenantScope(() => dynamo(), 'alpha'), inTenantScope(() => dynamo(), 'alpha'), inTenantScope(() => dynamo(), 'beta')]);
    expect(a1).toBe(a2);
    expect(b).not.toBe(a1);
    const credentialsOf = async (d: typeof a1) => (await (d.raw.config.credentials as () => Promise<{ accessKeyId: string }>)()).accessKeyId;
    expect(await credentialsOf(a1)).toBe('KEY-alpha');
    expect(await credentialsOf(b)).toBe('KEY-beta');
  });

  it(`closes the least recently used client past ${KEPT_TENANT_CLIENTS} tenants`, async () => {
    const first = await inTenantScope(() => dynamo(), 'u0');
    let destroyed = false;
    const destroy = first.raw.destroy.bind(first.raw);
    first.raw.destroy = () => {
      destroyed = true;
      destroy();
    };
    for (let i = 1; i < KEPT_TENANT_CLIENTS; i++) await inTenantScope(() => dynamo(), `u${i}`);
    expect(await inTenantScope(() => dynamo(), 'u0')).toBe(first);
    await inTenantScope(() => dynamo(), `u${KEPT_TENANT_CLIENTS}`);
    await new Promise((r) => setTimeout(r, 0));
    expect(destroyed).toBe(false);
    await inTenantScope(() => dynamo(), `u${KEPT_TENANT_CLIENTS + 1}`);
    await new Promise((r) => setTimeout(r, 0));
    expect(destroyed).toBe(false);
    // u1 is now the least recently used; u0 was used again.
    for (let i = KEPT_TENANT_CLIENTS + 2; i < 2 * KEPT_TENANT_CLIENTS + 1; i++) await inTenantScope(() => dynamo(), `u${i}`);
    await new Promise((r) => setTimeout(r, 0));
    expect(destroyed).toBe(true);
    expect(await inTenantScope(() => dynamo(), 'u0')).not.toBe(first);
  });
});

describe('the tenant scope', () => {
  it('holds one tenant for its life', () => {
    inTenantScope(() => {
      expect(scopedTenant()).toBeUndefined();
      enterTenant('alpha');
      enterTenant('alpha');
      expect(() => enterTenant('beta')).toThrow('this work acts for tenant alpha, not beta');
      expect(scopedTenant()).toBe('alpha');
    });
    expect(scopedTenant()).toBeUndefined();
  });

  it("is named by the wrapper from the host, per request, through the operation's awaits", async () => {
    Object.assign(process.env, { TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example', TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'ERROR' });
    resetConfigForTests();
    const route = defineRoute({
      operationId: 'whoami', method: 'GET', path: '/whoami', handler: 'none', auth: 'bearer', permission: 'ArthrServer:getFromTenant',
      summary: 's', tag: 't', request: {}, responses: { 200: { description: 'who', schema: z.object({ scoped: z.string() }) } }, aws: {},
    });
    const handler = apiHandler(route, async () => {
      await new Promise((r) => setTimeout(r, 5));
      return { status: 200, body: { scoped: scopedTenant() ?? '(none)' } };
    });
    const event = (tenant: string) =>
      ({
        headers: { host: `${tenant}.fir.example.com` },
        isBase64Encoded: false,
        rawQueryString: '',
        requestContext: { requestId: tenant, domainName: `${tenant}.fir.example.com`, authorizer: { jwt: { claims: { sub: 'k', tid: tenant, scope: 'ArthrServer:getFromTenant' } } } },
      }) as unknown as APIGatewayProxyEventV2;
    const answers = await Promise.all(['alpha', 'beta', 'gamma'].map((t) => handler(event(t))));
    expect(answers.map((a) => JSON.parse(a.body!).scoped)).toEqual(['alpha', 'beta', 'gamma']);
    expect(scopedTenant()).toBeUndefined();
  });
});
