/**
 * Operator CLI: creates a tenant with its first API key, or an extra all-permission key for an
 * existing tenant, writing straight to the table.
 *
 *   npm run operator -- create-tenant --tenant acme [--region fir] [--key-name "First key"] --local
 *   npm run operator -- create-tenant --tenant acme --region fir --table <TableName output> [--aws-region eu-west-1]
 *   npm run operator -- create-key --tenant acme [--key-name ...] (--local | --table ...)
 *   npm run operator -- backfill-views [--tenant acme] (--local | --table ...)
 *   npm run operator -- backfill-lists [--tenant acme] (--local | --table ...)
 *
 * backfill-views writes the list views and search term views of instances stored before they
 * existed (a Scan of the table; idempotent, so it can be rerun) and prints what it did.
 * backfill-lists writes the list views of process tokens, API keys and cloud secrets stored before
 * they existed (and the keys' count) and marks those lists viewed, for one tenant or all;
 * idempotent too.
 *
 * --local uses the running `npm start` (or starts DynamoDB Local on .local/ itself); --table uses
 * the deployed stack's table with the AWS default credentials. Prints JSON; the secret is shown
 * once and never stored in clear.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError } from '../functions/errors.js';
import { backfillLists, createOperatorKey, createTenantWithFirstKey } from '../functions/tenants/domain.js';
import { tenantDeps } from '../functions/tenants/deps.js';
import { backfillViews } from '../functions/process-manager/instances/backfill-views.js';
import { instances, tokens } from '../functions/process-manager/deps.js';
import { cloudSecrets } from '../functions/cloud-functions/deps.js';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../lib/local/dynamodb.js';
import { LOCAL_TABLE, type RuntimeInfo } from '../lib/local/runtime.js';

const USAGE = `usage:
  operator create-tenant --tenant <id> [--region fir|gum|oak] [--key-name <name>] (--local [--local-dir .local] | --table <name> [--aws-region <region>])
  operator create-key    --tenant <id> [--key-name <name>] (--local [--local-dir .local] | --table <name> [--aws-region <region>])
  operator backfill-views [--tenant <id>] (--local [--local-dir .local] | --table <name> [--aws-region <region>])
  operator backfill-lists [--tenant <id>] (--local [--local-dir .local] | --table <name> [--aws-region <region>])`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    tenant: { type: 'string' },
    region: { type: 'string', default: 'fir' },
    'key-name': { type: 'string' },
    local: { type: 'boolean', default: false },
    'local-dir': { type: 'string', default: process.env.LOCAL_DIR ?? '.local' },
    table: { type: 'string' },
    'aws-region': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const command = positionals[0];
if (values.help || !command || !['create-tenant', 'create-key', 'backfill-views', 'backfill-lists'].includes(command)) fail(USAGE, values.help ? 0 : 2);
if (!values.tenant && !command.startsWith('backfill-')) fail(`--tenant is required\n${USAGE}`);
if (values.local === Boolean(values.table)) fail(`give exactly one of --local or --table\n${USAGE}`);

let ownDynamo: LocalDynamo | undefined;
try {
  if (values.local) {
    const dir = resolve(values['local-dir']!);
    const runtimePath = join(dir, 'runtime.json');
    const running = existsSync(runtimePath) ? (JSON.parse(readFileSync(runtimePath, 'utf8')) as RuntimeInfo) : undefined;
    let endpoint: string;
    if (running && isAlive(running.pid)) {
      endpoint = running.dynamodbEndpoint;
    } else {
      ownDynamo = await startDynamoDbLocal(join(dir, 'dynamodb'));
      endpoint = ownDynamo.endpoint;
      const admin = localClient(endpoint);
      await ensureTable(admin, LOCAL_TABLE);
      admin.destroy();
    }
    Object.assign(process.env, { TABLE_NAME: LOCAL_TABLE, DYNAMODB_ENDPOINT: endpoint });
  } else {
    process.env.TABLE_NAME = values.table;
    if (values['aws-region']) process.env.AWS_REGION = values['aws-region'];
  }

  const stores = tenantDeps;
  const now = new Date();
  const out =
    command === 'backfill-lists'
      ? await backfillLists(
          stores.tenants,
          [
            { name: 'processTokens', backfill: (t) => tokens.backfillViews(t) },
            { name: 'apiKeys', backfill: (t) => stores.apiKeys.backfillViews(t) },
            { name: 'cloudSecrets', backfill: (t) => cloudSecrets.backfillViews(t) },
          ],
          {
            tenantId: values.tenant,
            onTenant: (t, done) => process.stderr.write(`${t}: ${JSON.stringify(done)}\n`),
          },
        )
      : command === 'backfill-views'
      ? await backfillViews(instances, {
          tenantId: values.tenant,
          now,
          onPage: (r) => process.stderr.write(`scanned ${r.scanned}, rewritten ${r.rewritten}, expired ${r.expired}, raced ${r.raced}\n`),
        })
      : command === 'create-tenant'
      ? await createTenantWithFirstKey(stores, {
          tenantId: values.tenant!,
          region: values.region!,
          keyName: values['key-name'] ?? 'first key',
          now,
          actor: 'operator',
        }).then((r) => ({ tenantId: r.tenant.tenantId, region: r.tenant.region, apiKeyId: r.apiKey.id, apiKey: r.secret }))
      : await createOperatorKey(stores, {
          tenantId: values.tenant!,
          keyName: values['key-name'] ?? 'operator key',
          now,
          actor: 'operator',
        }).then((r) => ({ tenantId: values.tenant!, apiKeyId: r.apiKey.id, apiKey: r.secret }));
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} catch (err) {
  if (err instanceof ApiError) fail(`${err.code}: ${err.message}`, 1);
  throw err;
} finally {
  await ownDynamo?.stop();
}
