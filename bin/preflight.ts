/**
 * Preflight: before `cdk deploy`, what the account and region would refuse (lib/preflight.ts).
 *
 *   npm run preflight [-- -c region=fir] [-c reservedConcurrency=true ...] [--region eu-west-1] [--json]
 *
 * Reads with the AWS default credentials (profile, environment, SSO), read-only. Takes the same
 * `-c key=value` context as `cdk deploy` (over cdk.json's), so it judges what that deploy would
 * reserve. The region checked is the one the deploy goes to: the AWS region cdk.json's `regions`
 * maps the service region (`-c region=`, default fir) to; `--region` checks another. Prints one
 * line per check (or `--json`); exits 1 when a check FAILs, 2 on bad arguments, else 0.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { deploymentPrefix, REGIONS, type ServiceRegion } from '../functions/config.js';
import { reservedConcurrencyFromContext } from '../lib/concurrency.js';
import type { PreflightPlan } from '../lib/preflight.js';

const USAGE = `usage: npm run preflight -- [-c key=value ...] [--region <aws-region>] [--json]
  -c, --context key=value   context as for cdk deploy (region=fir|gum|oak, reservedConcurrency=true,
                            activityConcurrency=N, executionEndConcurrency=N), over cdk.json's
  --region <aws-region>     the AWS region to check (default: where the service region deploys)
  --json                    print the results as JSON`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      context: { type: 'string', short: 'c', multiple: true, default: [] },
      region: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (err) {
  fail((err as Error).message);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const root = resolve(import.meta.dirname, '..');
const context: Record<string, unknown> = { ...(JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context };
for (const pair of args.context) {
  const eq = pair.indexOf('=');
  if (eq < 1) fail(`-c takes key=value, got "${pair}"`);
  context[pair.slice(0, eq)] = pair.slice(eq + 1);
}

const label = String(context.region ?? 'fir');
if (!(REGIONS as readonly string[]).includes(label)) fail(`Context "region" must be one of ${REGIONS.join(', ')}, got "${label}"`);
const mapped = (context.regions as Record<string, unknown> | undefined)?.[label];
const awsRegion = args.region ?? (typeof mapped === 'string' ? mapped : undefined);
if (!awsRegion || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(awsRegion)) fail(`No AWS region to check: give --region, or map "${label}" in cdk.json "regions"`);

let plan: PreflightPlan;
try {
  plan = { awsRegion, namePrefix: deploymentPrefix(label as ServiceRegion), reserved: reservedConcurrencyFromContext((key) => context[key]) };
} catch (err) {
  fail((err as Error).message);
}

// Loaded once the arguments hold: a mistyped flag answers at once, without loading seven SDK clients.
const [{ CloudFormationClient }, { IAMClient }, { LambdaClient }, { RekognitionClient }, { ServiceQuotasClient }, { SFNClient }, { STSClient }, { exitCode, formatResults, runPreflight }] =
  await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('@aws-sdk/client-iam'),
    import('@aws-sdk/client-lambda'),
    import('@aws-sdk/client-rekognition'),
    import('@aws-sdk/client-service-quotas'),
    import('@aws-sdk/client-sfn'),
    import('@aws-sdk/client-sts'),
    import('../lib/preflight.js'),
  ]);
const config = { region: awsRegion };
const results = await runPreflight(
  {
    sts: new STSClient(config),
    lambda: new LambdaClient(config),
    sfn: new SFNClient(config),
    quotas: new ServiceQuotasClient(config),
    cloudformation: new CloudFormationClient(config),
    iam: new IAMClient(config),
    rekognition: new RekognitionClient(config),
  },
  plan,
);

// The SDK's own default region (profile, AWS_REGION), which cdk deploy does not use for this stack.
const defaultRegion = await new STSClient({}).config.region().catch(() => undefined);
const note =
  defaultRegion && defaultRegion !== awsRegion
    ? `Checked ${awsRegion}${args.region ? '' : ` (where ${plan.namePrefix} deploys)`}; your default region is ${defaultRegion}.`
    : `Checked ${awsRegion}.`;

if (args.json) {
  process.stdout.write(`${JSON.stringify({ region: awsRegion, stack: plan.namePrefix, reserved: plan.reserved, defaultRegion, results, exitCode: exitCode(results) }, null, 2)}\n`);
} else {
  process.stdout.write(`Preflight of ${plan.namePrefix} in ${awsRegion}\n\n${formatResults(results)}\n${note}\n`);
}
process.exit(exitCode(results));
