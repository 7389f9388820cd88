import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeList } from '../../functions/routes.js';
import { createTenantWithFirstKey } from '../../functions/tenants/domain.js';
import { apiKeyStore } from '../../functions/store/api-keys.js';
import { tenantStore } from '../../functions/store/tenants.js';
import { signerFor } from '../../functions/auth/signer.js';
import { ensureTable, freePort, localClient, startDynamoDbLocal } from './dynamodb.js';
import { startHttpServer } from './server.js';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const LOCAL_TABLE = 'arthr';
export const LOCAL_REGION = 'fir';
export const LOCAL_DOMAIN = 'localhost';
export const DEMO_TENANT = 'demo';

export interface Bootstrap {
  baseUrl: string;
  tenantId: string;
  region: string;
  apiKey: string;
}

export interface RuntimeInfo {
  pid: number;
  dynamodbEndpoint: string;
  tableName: string;
  issuer: string;
}

export interface LocalRuntime {
  baseUrl: string;
  port: number;
  bootstrap: Bootstrap | undefined;
  createdDemo: boolean;
  stop(): Promise<void>;
}

/** The local signing key: RSA 2048 in PKCS#8 PEM, readable by this user only. */
function ensureSigningKey(path: string): void {
  if (existsSync(path)) return;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
}

/**
 * The whole service on one machine: DynamoDB Local with its data under `localDir`, the table
 * made from the shared schema, the handlers behind the API Gateway stand-in on loopback, and
 * on first start the `demo` tenant with an API key holding every permission.
 */
export async function startLocalRuntime(opts: { localDir: string; port: number; host?: string }): Promise<LocalRuntime> {
  const localDir = resolve(opts.localDir);
  mkdirSync(localDir, { recursive: true, mode: 0o700 });
  const keyPath = join(localDir, 'signing-key.pem');
  ensureSigningKey(keyPath);

  const dynamo = await startDynamoDbLocal(join(localDir, 'dynamodb'));
  try {
    const port = opts.port || (await freePort());
    const issuer = `http://localhost:${port}`;
    // The handlers read their configuration from the environment, as in Lambda.
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SERVICE_REGION: LOCAL_REGION,
      SERVICE_DOMAIN: LOCAL_DOMAIN,
      TOKEN_ISSUER: issuer,
      TOKEN_AUDIENCE: process.env.TOKEN_AUDIENCE ?? 'arthr-api',
      SIGNING_KEY: `file:${keyPath}`,
    });

    const admin = localClient(dynamo.endpoint);
    await ensureTable(admin, LOCAL_TABLE);
    admin.destroy();

    const baseUrl = `http://${DEMO_TENANT}.${LOCAL_REGION}.${LOCAL_DOMAIN}:${port}`;
    const bootstrapPath = join(localDir, 'bootstrap.json');
    let bootstrap: Bootstrap | undefined;
    let createdDemo = false;
    if (!(await tenantStore.get(DEMO_TENANT))) {
      const made = await createTenantWithFirstKey(
        { tenants: tenantStore, apiKeys: apiKeyStore },
        { tenantId: DEMO_TENANT, region: LOCAL_REGION, keyName: 'demo', now: new Date(), principal: 'operator' },
      );
      bootstrap = { baseUrl, tenantId: DEMO_TENANT, region: LOCAL_REGION, apiKey: made.secret };
      createdDemo = true;
    } else if (existsSync(bootstrapPath)) {
      bootstrap = { ...(JSON.parse(readFileSync(bootstrapPath, 'utf8')) as Bootstrap), baseUrl };
    }
    if (bootstrap) writeFileSync(bootstrapPath, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });

    const signer = signerFor(`file:${keyPath}`);
    const jwk = await signer.publicJwk();
    const http = await startHttpServer({
      routes: routeList,
      root: ROOT,
      host: opts.host ?? '127.0.0.1',
      port,
      jwks: async () => ({ keys: [jwk] }),
      issuer,
      audience: process.env.TOKEN_AUDIENCE!,
    });

    const runtimePath = join(localDir, 'runtime.json');
    const info: RuntimeInfo = { pid: process.pid, dynamodbEndpoint: dynamo.endpoint, tableName: LOCAL_TABLE, issuer };
    writeFileSync(runtimePath, `${JSON.stringify(info, null, 2)}\n`);

    return {
      baseUrl,
      port,
      bootstrap,
      createdDemo,
      async stop() {
        await http.close();
        await dynamo.stop();
        rmSync(runtimePath, { force: true });
      },
    };
  } catch (err) {
    await dynamo.stop();
    throw err;
  }
}
