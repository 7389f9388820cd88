/**
 * `npm start`: the whole service on this machine. PORT picks the port (default 8080; 0 picks a
 * free one), LOCAL_DIR the data folder (default .local), LOG_FORMAT the log (text, one short
 * line per request, by default; json as on AWS). Ctrl-C stops it cleanly.
 *
 * `npm start` runs it as `node --import tsx bin/local.ts`, one process, not through the `tsx`
 * command: that one runs the script in a child and, on Ctrl-C, SIGKILLs the child unless the
 * child has reported the signal back within 30 ms, which a busy service (a loaded machine, a
 * journey being recorded) often has not: the stop was cut short and the journeys in flight were
 * left for the next start to end.
 */
import { DataFolderInUseError, startLocalRuntime } from '../lib/local/runtime.js';
import { textLog, type RequestRecord } from '../lib/local/text-log.js';
import { installLogSink, logLevel } from '../functions/observability/logger.js';
import { BPMN_EXAMPLES, EXAMPLES } from '../statemachines/examples/index.js';

const port = Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not "${process.env.PORT}".`);
  process.exit(2);
}

// The terminal gets one short line per request (text); JSON lines, as on AWS, on request.
const format = process.env.LOG_FORMAT ?? 'text';
if (format !== 'text' && format !== 'json') {
  console.error(`LOG_FORMAT must be text or json, not "${format}".`);
  process.exit(2);
}
let requestLog: ((r: RequestRecord) => void) | undefined;
if (format === 'text') {
  const text = textLog();
  installLogSink(text.sink);
  if (['DEBUG', 'INFO'].includes(logLevel())) requestLog = text.request;
}

const dir = process.env.LOCAL_DIR ?? '.local';
const runtime = await startLocalRuntime({ localDir: dir, port, ...(requestLog && { requestLog }) }).catch((err: unknown) => {
  if (!(err instanceof DataFolderInUseError)) throw err;
  console.error(err.message);
  process.exit(1);
});
const { baseUrl, bootstrap } = runtime;
const lines = [
  '',
  `Service running at ${baseUrl}   (tenant demo, region fir)`,
  `OpenAPI document:  http://localhost:${runtime.port}/openapi.json`,
  `Console:           ${baseUrl}/console   (sign in with an API key: docs/console.md)`,
  // The one list of examples (statemachines/examples/index.ts); the runtime publishes them all.
  `Example journeys:  ${[...Object.entries(EXAMPLES).map(([name, json]) => `${name} v${(json as { version: number }).version}`), ...BPMN_EXAMPLES.map(({ name }) => `${name} v1 (BPMN)`)].join(', ')} (process definitions of the demo tenant${runtime.published.length ? '; published now' : ''})`,
];
if (bootstrap && runtime.createdDemo) {
  // The secret is shown once, when it is made (as the API shows a key's secret once); later
  // starts point to where it is kept, so it does not land in every terminal log and scrollback.
  lines.push(
    `Demo API key:      ${bootstrap.apiKey}   (new: shown this once; kept in ${dir}/bootstrap.json, readable by you only)`,
    '',
    'Get a bearer token:',
    `  curl -s -X POST ${baseUrl}/api/arthr/apiKeys/issue -H "X-API-Key: ${bootstrap.apiKey}" -H 'content-type: application/json' -d '{}'`,
  );
} else if (bootstrap) {
  lines.push(
    `Demo API key:      in ${dir}/bootstrap.json (shown when it was made)`,
    '',
    'Get a bearer token:',
    `  curl -s -X POST ${baseUrl}/api/arthr/apiKeys/issue -H "X-API-Key: $(node -p "require('./${dir}/bootstrap.json').apiKey")" -H 'content-type: application/json' -d '{}'`,
  );
} else {
  lines.push(`The demo tenant exists but ${dir}/bootstrap.json is gone: make a new key with \`npm run operator -- create-key --tenant demo --local\`.`);
}
lines.push('', `Ctrl-C stops the service; its data stays in ${dir}/.`, '');
process.stdout.write(lines.join('\n'));

let stopping = false;
let stopped = false;
// Said, not silent: Node ends a process whose event loop has nothing left to wait for, even in
// the middle of an await, so a stop whose part waited on a promise nothing keeps alive would end
// without a word (runtime.ts `within` keeps a timer for that; this says so if it ever happens).
process.on('exit', (code) => {
  if (stopping && !stopped) process.stderr.write(`stop: the process ended (code ${code}) before the stop was done; the next start ends what it left.\n`);
});
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping...\n`);
  try {
    const { journeysEnded, notRecorded } = await runtime.stop();
    // What the docs promise for journeys in flight, said where the user looks.
    if (journeysEnded) {
      const what = journeysEnded === 1 ? '1 journey in flight ended' : `${journeysEnded} journeys in flight ended`;
      process.stdout.write(`${what} (COMPLETED_TERMINATED)${notRecorded ? `; ${notRecorded} could not be recorded now, the next start ends them` : ''}.\n`);
    }
    process.stdout.write('Stopped.\n');
    stopped = true;
    process.exit(0);
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
