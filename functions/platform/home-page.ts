import { escapeHtml, pageFrame, SERVICE_NAME } from './page-frame.js';

/**
 * The first call, as the README's "First calls" make it (an API key for a bearer token, then a
 * call with the token), runnable as it stands from the repository's root with `npm start`
 * running: test/integration/pages.test.ts runs it.
 */
export const FIRST_CALL = `json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }  # prints a member of the JSON on stdin
BOOT=\${LOCAL_DIR:-.local}/bootstrap.json   # npm start keeps the demo tenant's key and base URL here
KEY=$(json .apiKey < "$BOOT")
BASE=$(json .baseUrl < "$BOOT")            # http://demo.fir.localhost:8080

# 1. API key -> bearer token ({token, ttl}; ttl in seconds, 3600 by default)
TOKEN=$(curl -s -X POST "$BASE/api/arthr/apiKeys/issue" -H "X-API-Key: $KEY" | json .token)

# 2. Call the API with the token: the tenant's five newest API keys
curl -s "$BASE/api/arthr/apiKeys?size=5&sort=createdDtm,desc" -H "Authorization: Bearer $TOKEN" -w '\\n'`;

const BODY = `<h1>${escapeHtml(SERVICE_NAME)}</h1>
<p class="lead">This service takes a relying party's users through identity-verification journeys (a data form, a live face capture matched against a photo, a passcode or passkey, the relying party's own code, and a decision at the end) and gives the relying party an API and a console to run and review them.</p>
<h2>Where to go</h2>
<ul class="cards">
<li><a href="/console">Console</a><p>The review queue, instances with their timeline and webhook deliveries, definitions drawn as BPMN, API keys. Sign in with one of the tenant's API keys, on the tenant's host.</p></li>
<li><a href="/docs">API reference</a><p>Every operation by tag: its auth and permission, parameters, body, answers and an example; the webhooks' events; the schemas.</p></li>
<li><a href="/openapi.json">OpenAPI document</a><p>The same reference as OpenAPI 3.1 JSON, for generators. The typed TypeScript client in <code>clients/typescript/</code> is generated from it.</p></li>
</ul>
<h2>A first call</h2>
<p>Each tenant has a host of its own, which is how the API knows the tenant: locally <code>http://{tenantId}.fir.localhost:8080</code>, where <code>npm start</code> makes the tenant <code>demo</code>, prints its API key once and keeps the key and the base URL in <code>.local/bootstrap.json</code>; on AWS <code>https://{tenantId}.{region}.{domain}</code>. A call exchanges an API key for a bearer token, then calls the API with the token. From the repository's root, with <code>npm start</code> running:</p>
<pre><code>${escapeHtml(FIRST_CALL)}</code></pre>
<p>Each call's answer is JSON; an error has one body, <code>{code, message, details?}</code>.</p>
<h2>Next</h2>
<ul>
<li><code>README.md</code>, "First calls", in the repository: the same start, then a key that may only read, a process token, an instance of a journey and the link its end user opens.</li>
<li><code>docs/typed-client.md</code>: the TypeScript client, one example per flow.</li>
<li><code>docs/sandbox.md</code>: test-mode tokens that force each check and the decision, to pass a journey locally.</li>
<li><code>docs/console.md</code> and <code>docs/api-reference.md</code>: these pages.</li>
</ul>`;

/** The home page (`GET /`): what the service is, links to the console and the API reference, a first call. */
export const HOME_PAGE = pageFrame({ title: SERVICE_NAME, current: '/', body: BODY });
