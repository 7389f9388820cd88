/**
 * The bundle budget of every route, judged: 250 KB (BUNDLE_LIMIT_BYTES) each, but for the few
 * routes listed in ROUTE_BUNDLE_BUDGETS, whose job needs more and which hold a budget of their
 * own. Both `npm run bench` and the fast `npm run bench:bundles` (CI) judge with this module, and
 * a size is exact: any route over its budget fails them.
 *
 * Since the AWS SDK is bundled (lib/bundling.ts), a bundle is two parts judged apart: the route's
 * own code and dependencies (the bundle built with the SDK left out, as every function was
 * deployed before), held to the budgets above; and the SDK it carries (the deployed size minus
 * that), held to SDK_BUNDLE_BUDGET. The SDK's share is set by which clients a route uses, not by
 * how its code grows, and about 485 KB for DynamoDB with KMS alone, so it cannot live inside a
 * 250 KB budget; judged apart, growth of the service's own code still fails at the same figures.
 */
import type { RouteDef } from '../../functions/http/route.js';
import { LAYER_PACKAGES } from '../../lib/bundling.js';
import { BUNDLE_LIMIT_BYTES, type BundleResult } from './bundles.js';
import { round, table } from './stats.js';

const KB = 1024;
const kb = (bytes: number) => round(bytes / KB, 1);

/**
 * Routes over 250 KB because of what they are for, each with its own budget (KB of 1,024 bytes;
 * the size of 2026-11-27 rounded up to the next 5 KB, so that any growth past that fails) and
 * why. The one place such an exception is written: a route not here is held to 250 KB, and an
 * entry its route no longer needs (under 250 KB) fails the check too, so that it is removed.
 * Raise a budget only with the reason, in the same commit as what made the route grow.
 */
export const ROUTE_BUNDLE_BUDGETS: Readonly<Record<string, { kb: number; why: string }>> = {
  addCustomPage: {
    kb: 435,
    why:
      'reads a custom page bundle under its rules (functions/theme-server/bundle.ts): the full @zip.js/zip.js reader with its own inflate (218.6 KB, as addCloudFunction) and tar-stream with streamx for .tar.gz (node zlib inflates), beside the custom page store and the S3 calls of the pages bucket (measured 432.1 KB). The way down is the one of addCloudFunction: the core reader of zip.js on the DecompressionStream of the runtime',
  },
  previewCustomPage: {
    kb: 435,
    why:
      'reads a custom page bundle under its rules (functions/theme-server/bundle.ts): the full @zip.js/zip.js reader with its own inflate (218.6 KB, as addCloudFunction) and tar-stream with streamx for .tar.gz (node zlib inflates), beside the custom page store and the S3 calls of the pages bucket (measured 430.8 KB). The way down is the one of addCloudFunction: the core reader of zip.js on the DecompressionStream of the runtime',
  },
  updateCustomPage: {
    kb: 435,
    why:
      'reads a custom page bundle under its rules (functions/theme-server/bundle.ts): the full @zip.js/zip.js reader with its own inflate (218.6 KB, as addCloudFunction) and tar-stream with streamx for .tar.gz (node zlib inflates), beside the custom page store and the S3 calls of the pages bucket (measured 432.1 KB). The way down is the one of addCloudFunction: the core reader of zip.js on the DecompressionStream of the runtime',
  },
  getConsoleScript: {
    kb: 368,
    why:
      'serves the console\'s one script (issue 27), which it holds as text: the console itself (about 270 KB, bpmn-js\'s NavigatedViewer ' +
      'most of it, for the definitions\' diagrams) beside the wrapper every route carries (measured 360.6 KB). The way down: the script ' +
      'from S3 behind the same API, or bpmn-js loaded only by the definitions screen',
  },
  addCloudFunction: {
    kb: 394,
    why:
      'unpacks an uploaded zip: the full @zip.js/zip.js reader with its own inflate (216 KB). Its core reader build would ' +
      'use the runtime\'s DecompressionStream instead (as createUserDataArchive uses the writer build): the way down, not yet judged safe. ' +
      'Raised from 375 KB when every route came to act for its tenant through a tenant role (tenant scope, session cache and per-tenant ' +
      'clients, about 2 KB) and the stores merged their shards. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 381.1 KB). Raised again when issue 27 merged (measured 384.4 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 387.5 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys. Raised again with Python cloud functions (issue 29, measured 391.7 KB): the Python upload\'s rules (20,000 characters, the script as resource) and the runner\'s check through the Lambda client (the route invokes the runner to compile a script)',
  },
  createProcessDefinition: {
    kb: 430,
    why:
      'imports BPMN (bpmn-moddle with the Camunda descriptor) and validates and compiles the definition to ASL (statemachines/): its job. ' +
      'Raised from 340 KB when the stores gained cursor paging (store/ranges.ts, list views): a store is one object, so every route ' +
      'that writes definitions carries their list code too; splitting the stores\' list halves out is the way down. Raised from 350 KB ' +
      'with the family\'s journeys: a refused definition lists every problem within a byte budget, the create body takes `status` ' +
      '(EDITABLE) and `themeId`, the read\'s `resources` schema, and the catalogue grew by the review, pause, switch and flow activities. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 373.6 KB). Raised again when issue 27 merged (measured 378.3 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. Raised again with themes (issue 28, measured 380.4 KB): a `themeId` is checked to name a theme of the tenant (the theme versions\' reader and the UNKNOWN_THEME check), and the error catalogue every route carries gained the theme codes. Raised again with the Custom Page activity (issue 28, measured 385 KB): its spec in the catalogue and the check of a map of templates (Session Data) at publish' +
      ' Raised with the identity documents (issue 30, measured 416.9 KB): fourteen more activity specs in the catalogue (the document steps\' inputs, error events and family names), the number input type and the publish checks of the countries and additional documents configurations.' +
      ' Raised with the active liveness challenge (issue 31, measured 423 KB): the catalogue gained Face Liveness (its inputs, two error events, family names) and the capture step\'s three liveness inputs and Liveness Challenge Declined.' +
      ' Raised with Face Template Generation (issue 31, measured 425 KB): its spec (input, outputs, error event, family names) in the catalogue. Raised with Rekognition Face Liveness (issue 31, measured 428.8 KB): the catalogue gained the capture\'s Liveness Check REKOGNITION and its three inputs, and publish the check that refuses it where the deployment has no Rekognition Face Liveness.',
  },
  submitFaceCapture: {
    kb: 377,
    why:
      'decodes the captured JPEG or PNG (jpeg-js and pngjs, about 50 KB) to check the face in it: its job. Raised from 280 KB when ' +
      'its images came to go through the tenant role (per-tenant S3 clients, pre-signing with a session that outlives the URL) beside ' +
      'the tenant scope every route carries. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 290 KB). Raised again when issue 27 merged (measured 302.1 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 306.3 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys ' +
      'Raised again when the hosted pages came to wear the relying party\'s theme (issue 28, measured 311.9 KB): the pages\' colours and font as CSS custom properties with their defaults (DEFAULT_PALETTE) and the theme\'s style, checked again before it reaches CSS (journey/theme-style.ts with the palette\'s colour parser), about 5.5 KB on every journey page route' +
      ' Raised with the identity documents (issue 30, measured 336.5 KB): the document capture and additional document steps\' screens and submissions on every journey route (the country list, the image and PDF judgements, their messages in two languages).' +
      ' Raised with the active liveness challenge (issue 31, measured 358.9 KB): the active liveness challenge\'s submission: the challenge found, taken once with its frames\' hashes (one transaction), each frame checked by its bytes, the measurements judged with every threshold (faces/challenge.ts, liveness-challenge-step.ts, the challenge store), about 19 KB.' +
      ' Raised with the eyes rules (issue 31, measured 361.2 KB): eyes open and uncovered judged at capture, their figures in the check, and the two messages in two languages. Raised with Rekognition Face Liveness (issue 31, measured 375.7 KB): its job grew: a REKOGNITION capture\'s session read from Rekognition (the adapter, the session store) and its reference and audit images kept, with the screen, messages and catalogue inputs every journey route gained.',
  },
  resumeJourney: {
    kb: 265,
    why:
      'resumes a paused journey from its link and shows the step it waits at: the journey pages\' screens and their submission rules. It crossed 250 KB ' +
      'with the identity documents (issue 30, measured 251.2 KB): the document capture and additional document steps\' screens (the country list, their messages in two languages) that every journey page route carries.' +
      ' Raised with the active liveness challenge (issue 31, measured 257.4 KB): the catalogue gained Face Liveness and the capture\'s three liveness inputs and its error event, and every journey route the challenge\'s messages in two languages (its screen, prompts and refusals). Raised with Rekognition Face Liveness (issue 31, measured 263.3 KB): the route table\'s two Face Liveness routes and two error codes, and the Face Liveness capture\'s screen and messages in two languages.',
  },
  openapi: {
    kb: 368,
    why:
      'builds the OpenAPI document from every route\'s zod schemas: the whole route table is its job (it grows with the API). Raised ' +
      'from 280 KB with the family\'s fields and routes: statusMapped and elapsedMilliseconds, EDITABLE, resources.bpmn, the hosted-UI ' +
      'link, the reviewer\'s and the resume routes, and the activities the catalogue gained. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 293.8 KB). Raised again for the typed client (issue 27): an example of every operation in the document, made from the schemas by member name and format, and the hand-written ones of the README\'s flows (measured 311.6 KB). Raised again when issue 27 merged (measured 318.3 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. Raised again (measured 324.9 KB) for the routes of ' +
      'an instance\'s events and deliveries and of the home page and API reference, with their schemas and examples. Raised again with themes (issue 28, measured 343.4 KB): the theme server\'s nine routes, the palette\'s schema with a description per colour of each area, and their examples. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 356.9 KB): the document gained the eleven custom page routes, their schemas and examples' +
      ' Raised with the identity documents (issue 30, measured 359.9 KB): the document images\' and checks\' new fields in the schemas. Raised with Rekognition Face Liveness (issue 31, measured 366.3 KB): the document gained the two Face Liveness routes, the capture\'s REKOGNITION inputs and two error codes.',
  },
  getApiReference: {
    kb: 383,
    why:
      'renders the OpenAPI document as the API reference page (/docs, issue 27), so it builds the document as openapi does: the whole ' +
      'route table with every zod schema and the examples (openapi measured 319.4 KB), loaded at the first request, plus the renderer, ' +
      'the page frame and the static-file helpers (about 15 KB; measured 334.9 KB). No markdown or client-side reference library. The ' +
      'way down is the one of openapi, or the page rendered at build time and served from S3. Raised to 345 KB (measured 340.3 KB) with the document: the ' +
      'routes of an instance\'s events and deliveries. Raised again with themes (issue 28, measured 358.8 KB): the document gained the theme server\'s nine routes, the palette\'s schema and their examples. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 372.3 KB): the document gained the eleven custom page routes, their schemas and examples' +
      ' Raised with the identity documents (issue 30, measured 375.3 KB): the document images\' and checks\' new fields in the schemas. Raised with Rekognition Face Liveness (issue 31, measured 381.7 KB): the document gained the two Face Liveness routes, the capture\'s REKOGNITION inputs and two error codes.',
  },
  getProcessDefinitionBpmn: {
    kb: 338,
    why:
      'writes a definition back as BPMN (bpmn-moddle with the Camunda descriptor): its job. Raised from 275 KB when the definitions\' ' +
      'route file, whose schemas every definition route carries, gained the read\'s `resources`, `status` on create and `themeId`, ' +
      'and the catalogue (which it carries) gained the family\'s review, pause, switch and flow activities. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 291.7 KB). Raised again when issue 27 merged (measured 295.4 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 299 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys. Raised again with the Custom Page activity (issue 28, measured 301.1 KB): its spec in the catalogue the writer carries' +
      ' Raised with the identity documents (issue 30, measured 326.2 KB): fourteen more activity specs in the catalogue (the document steps\' inputs, error events and family names), the number input type and the publish checks of the countries and additional documents configurations.' +
      ' Raised with the active liveness challenge (issue 31, measured 332.3 KB): the catalogue gained Face Liveness (its inputs, two error events, family names) and the capture step\'s three liveness inputs and Liveness Challenge Declined. Raised with Rekognition Face Liveness (issue 31, measured 336.5 KB): the catalogue gained the capture\'s Liveness Check REKOGNITION and its three inputs.',
  },
  getProcessDefinition: {
    kb: 341,
    why:
      'its read carries the version\'s BPMN file as the family\'s migration tools read it (resources.bpmn.data), and for a ' +
      'version published as JSON writes that file as getProcessDefinitionBpmn does (the writer with bpmn-moddle and the Camunda ' +
      'descriptor, about 118 KB); loaded at first use, so the route\'s import time stays as it was and reads of uploads never load it. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 294.1 KB). Raised again when issue 27 merged (measured 297.8 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 301.4 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys. Raised again with Python cloud functions (issue 29, measured 304.6 KB): the catalogue gained Execute Cloud Function v1, and the compiler a service step\'s error message parsed from its Lambda\'s error' +
      ' Raised with the identity documents (issue 30, measured 329.2 KB): fourteen more activity specs in the catalogue (the document steps\' inputs, error events and family names), the number input type and the publish checks of the countries and additional documents configurations.' +
      ' Raised with the active liveness challenge (issue 31, measured 335.4 KB): the catalogue gained Face Liveness (its inputs, two error events, family names) and the capture step\'s three liveness inputs and Liveness Challenge Declined. Raised with Rekognition Face Liveness (issue 31, measured 339.7 KB): the catalogue gained the capture\'s Liveness Check REKOGNITION and its three inputs.',
  },
  setProcessDefinitionStatus: {
    kb: 315,
    why:
      'activates a version: validates and compiles its definition to ASL (statemachines/) for its state machine, so it carries the ' +
      'catalogue, which crossed 250 KB (262.5 KB) when the family\'s journeys added eleven activities (review, pause, switch, flow) ' +
      'and their instance fields; the way down is the one of createProcessDefinition (the stores\' list halves split out). Raised again when issue 27 merged (measured 266 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 269.6 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys. Raised again with Python cloud functions (issue 29, measured 273.1 KB): the catalogue gained Execute Cloud Function v1, and the compiler a service step\'s error message parsed from its Lambda\'s error' +
      ' Raised with the identity documents (issue 30, measured 302.8 KB): fourteen more activity specs in the catalogue (the document steps\' inputs, error events and family names), the number input type and the publish checks of the countries and additional documents configurations.' +
      ' Raised with the active liveness challenge (issue 31, measured 308.9 KB): the catalogue gained Face Liveness (its inputs, two error events, family names) and the capture step\'s three liveness inputs and Liveness Challenge Declined.' +
      ' Raised with issue 31 (measured 311.8 KB): Face Template Generation\'s spec in the catalogue, and the publish rule that a capture judged by Face Liveness takes the challenge. Raised with Rekognition Face Liveness (issue 31, measured 313.8 KB): the catalogue gained the capture\'s Liveness Check REKOGNITION and its three inputs.',
  },
  showJourney: {
    kb: 383,
    why:
      "shows a Switch Device step's QR code, drawn on the server as inline SVG (qrcode-generator 2.0.4, 21 KB), and completes a step back " +
      "to the computer when the computer's page takes the journey back from the phone (the user steps' completion path with its output " +
      'parameters\' JUEL, about 27 KB, which every submission route carries too): 233 KB before. The way down: the QR code as an image ' +
      'from a route of its own, and the take-back behind a redirect to one. Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 303.6 KB). Raised again when issue 27 merged (measured 316.9 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. Raised again with themes (issue 28, measured 319.1 KB): the error catalogue, permissions and key layout every route carries gained the theme codes and the theme asset key (about 0.5 KB). ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 321.5 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys ' +
      'Raised again when the hosted pages came to wear the relying party\'s theme (issue 28, measured 327.1 KB): the pages\' colours and font as CSS custom properties with their defaults (DEFAULT_PALETTE) and the theme\'s style, checked again before it reaches CSS (journey/theme-style.ts with the palette\'s colour parser), about 5.5 KB on every journey page route. Raised again with the Custom Page activity (issue 28, measured 332.6 KB): its host screen (the sandboxed frame, what the page is told as inert JSON) and the frame\'s CSP' +
      ' Raised with the identity documents (issue 30, measured 358.4 KB): the document capture and additional document steps\' screens and submissions on every journey route (the country list, the image and PDF judgements, their messages in two languages).' +
      ' Raised with the active liveness challenge (issue 31, measured 371.6 KB): the catalogue gained Face Liveness and the capture\'s three liveness inputs and its error event, and every journey route the challenge\'s messages in two languages (its screen, prompts and refusals); the capture page\'s challenge screen (stage, prompts, the way out) on the journey page. Raised with Rekognition Face Liveness (issue 31, measured 381.6 KB): the catalogue\'s REKOGNITION inputs, the route table\'s two Face Liveness routes and two error codes, the Face Liveness capture screen and its messages in two languages, and the CSP its stream needs.',
  },
  submitPasscodeStep: {
    kb: 318,
    why:
      'judges a passcode screen: SRP (tssrp6a, 14 KB) and the data form it shows with its field checks (statemachines/forms.ts, ' +
      'jsep conditions, 20 KB). It crossed 250 KB when the tenant rate limit\'s leases came into every bundle (0.6 KB), and grew 7 KB ' +
      'more with the API key store\'s list views and cursor paging, which the wrapper\'s API key check brings into every route. The way ' +
      'down: stores are single objects (the instance store is 12.8 KB here), so a journey route carries list views and search it ' +
      'never uses; splitting their list halves out frees about 15 KB. Raised from 262 KB with the tenant roles (tenant scope and ' +
      'session cache in every route, about 2 KB). Raised from 265 KB when every journey route came to accept the capability of a phone a ' +
      'Switch Device step moved the journey to (a device read, its key and two error codes, 0.6 KB). Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 273.8 KB). Raised again when issue 27 merged (measured 285.2 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. Raised again with themes (issue 28, measured 287.1 KB): the error catalogue, permissions and key layout every route carries gained the theme codes and the theme asset key (about 0.5 KB). ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 289.5 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys ' +
      'Raised again when the hosted pages came to wear the relying party\'s theme (issue 28, measured 295.1 KB): the pages\' colours and font as CSS custom properties with their defaults (DEFAULT_PALETTE) and the theme\'s style, checked again before it reaches CSS (journey/theme-style.ts with the palette\'s colour parser), about 5.5 KB on every journey page route' +
      ' Raised with the identity documents (issue 30, measured 304.8 KB): the document capture and additional document steps\' screens and submissions on every journey route (the country list, the image and PDF judgements, their messages in two languages).' +
      ' Raised with the active liveness challenge (issue 31, measured 311 KB): the catalogue gained Face Liveness and the capture\'s three liveness inputs and its error event, and every journey route the challenge\'s messages in two languages (its screen, prompts and refusals). Raised with Rekognition Face Liveness (issue 31, measured 316.9 KB): the catalogue\'s REKOGNITION inputs, the route table\'s two Face Liveness routes and two error codes, and the Face Liveness capture\'s messages in two languages.',
  },
  createUserDataArchive: {
    kb: 283,
    why: 'writes the AES-encrypted zip of the user data (zip.js\'s writer-only build, 100 KB): its job. Raised from 265 KB when the ' +
      'instance store\'s list reads came to merge their shards (store/shards.ts, about 1 KB): it carries the whole instance store; ' +
      'raised from 267 KB with the tenant roles (tenant scope, session cache, per-tenant S3 and DynamoDB clients, about 2.5 KB). Raised again when the family\'s journeys merged (issue 26): the catalogue every definition route and journey page carries gained eleven activities (review, pause, switch, flow), and the instance records and stores the review, pause, redirect and device holder (measured 274.3 KB). Raised again when issue 27 merged (measured 276.7 KB): the sandbox\'s forced checks and test-mode marks, the pages\' presentation, progress and kept refusals on the instance and step records and stores, and (journey routes) the page chrome, consent notice and language choice. ' +
      'Raised again when custom pages merged beside themes (issue 28, measured 280.2 KB): the error catalogue and the key layout that every route carries gained the custom pages\' 17 codes and the themes\' 8, and their object keys',
  },
  submitPasskeyStep: {
    kb: 277,
    why:
      'checks a passkey ceremony (@simplewebauthn/server, in a layer) and shows the passkey screen. It crossed 250 KB (measured 254.1 KB) ' +
      'when the hosted pages came to wear the relying party\'s theme (issue 28): the pages\' colours and font as CSS custom properties with ' +
      'their defaults (DEFAULT_PALETTE) and the theme\'s style, checked again before it reaches CSS (journey/theme-style.ts with the ' +
      'palette\'s colour parser), about 5.5 KB on every journey page route. The way down is the one of submitPasscodeStep: the stores\' list halves split out' +
      ' Raised with the identity documents (issue 30, measured 263.8 KB): the document capture and additional document steps\' screens and submissions on every journey route (the country list, the image and PDF judgements, their messages in two languages).' +
      ' Raised with the active liveness challenge (issue 31, measured 270 KB): the catalogue gained Face Liveness and the capture\'s three liveness inputs and its error event, and every journey route the challenge\'s messages in two languages (its screen, prompts and refusals). Raised with Rekognition Face Liveness (issue 31, measured 275.9 KB): the catalogue\'s REKOGNITION inputs, the route table\'s two Face Liveness routes and two error codes, and the Face Liveness capture\'s messages in two languages.',
  },
  submitJourneyStep: {
    kb: 298,
    why:
      'judges a data form step: its fields and checks (statemachines/forms.ts, jsep conditions), phone numbers (awesome-phonenumber in a ' +
      'layer) and the step completion path with its output parameters. It crossed 250 KB (measured 251.2 KB) when custom pages merged beside ' +
      'themes (issue 28): the error catalogue and the key layout every route carries gained 25 codes and their object keys. The way down is ' +
      'the one of submitPasscodeStep: the stores\' list halves split out ' +
      'Raised again when the hosted pages came to wear the relying party\'s theme (issue 28, measured 256.8 KB): the pages\' colours and font as CSS custom properties with their defaults (DEFAULT_PALETTE) and the theme\'s style, checked again before it reaches CSS (journey/theme-style.ts with the palette\'s colour parser), about 5.5 KB on every journey page route. Raised again with the Custom Page activity (issue 28, measured 263.1 KB): its SEND is a form submission (the variables\' rules, the capture that replaces the last one) and its refusal shows the host screen again' +
      ' Raised with the identity documents (issue 30, measured 284.4 KB): the document capture and additional document steps\' screens and submissions on every journey route (the country list, the image and PDF judgements, their messages in two languages).' +
      ' Raised with the active liveness challenge (issue 31, measured 290.6 KB): the catalogue gained Face Liveness and the capture\'s three liveness inputs and its error event, and every journey route the challenge\'s messages in two languages (its screen, prompts and refusals). Raised with Rekognition Face Liveness (issue 31, measured 296.5 KB): the catalogue\'s REKOGNITION inputs, the route table\'s two Face Liveness routes and two error codes, and the Face Liveness capture\'s messages in two languages.',
  },
};

/**
 * The figures before the budgets failed (commit 3173541, 2026-11-27, esbuild 0.28.2): nine
 * routes over 250 KB, the journey page 630 KB, 338 KB of it libphonenumber. Printed beside
 * today's, so the change shows.
 */
export const BUNDLES_BEFORE = {
  commit: '3173541',
  kb: {
    showJourney: 630.4,
    submitPasscodeStep: 610.2,
    submitJourneyStep: 573.2,
    addCloudFunction: 371.1,
    createProcessDefinition: 335.1,
    submitFaceCapture: 294.8,
    openapi: 270.0,
    getProcessDefinitionBpmn: 262.7,
    createUserDataArchive: 262.1,
  } as Readonly<Record<string, number>>,
};

/**
 * The AWS SDK's bytes in a route's bundle (KB of 1,024 bytes): the largest share of 2026-11-27
 * rounded up to the next 5 KB, so that a route which starts using one more client than the most
 * any route uses today fails, and the choice of bundling it is made again with its figure.
 */
export const SDK_BUNDLE_BUDGET = {
  kb: 870,
  why:
    'the tested SDK version deploys only when bundled (docs/aws.md, "Which AWS SDK deploys"); its share depends on the clients a ' +
    'route uses: 484.5 to 485.3 KB in 78 of the 100 routes, which load DynamoDB and KMS (@smithy/core 134 KB, client-dynamodb 96 KB, ' +
    'client-kms 67 KB, the credential providers and their nested clients), up to 839.9 KB for submitFaceCapture (S3 and Rekognition too). ' +
    'Raised from 840 KB when every function came to assume its tenant role (client-sts, about 29 KB): 513.2 to 868.7 KB now',
};

/** A route's budget in bytes: its own, or BUNDLE_LIMIT_BYTES. */
export function bundleBudgetBytes(operationId: string): number {
  const own = Object.hasOwn(ROUTE_BUNDLE_BUDGETS, operationId) ? ROUTE_BUNDLE_BUDGETS[operationId] : undefined;
  return own ? own.kb * KB : BUNDLE_LIMIT_BYTES;
}

/**
 * `kb` the deployed size; `ownKb` without the AWS SDK, judged against `budgetKb`; `sdkKb` what the
 * bundled SDK adds, judged against SDK_BUNDLE_BUDGET.
 */
export type JudgedBundle = BundleResult & {
  kb?: number;
  ownKb?: number;
  sdkKb?: number;
  budgetKb: number;
  verdict: 'OK' | 'OVER' | 'ERROR';
  sdkVerdict: 'OK' | 'OVER' | 'ERROR';
};

export function judgeBundles(bundles: readonly BundleResult[]): JudgedBundle[] {
  return bundles.map((b) => {
    const budget = bundleBudgetBytes(b.operationId);
    const measured = !b.error && b.bytes !== undefined && b.ownBytes !== undefined;
    const sdkBytes = measured ? b.bytes! - b.ownBytes! : undefined;
    const verdict = !measured ? 'ERROR' : b.ownBytes! <= budget ? 'OK' : 'OVER';
    const sdkVerdict = sdkBytes === undefined ? 'ERROR' : sdkBytes <= SDK_BUNDLE_BUDGET.kb * KB ? 'OK' : 'OVER';
    return {
      ...b,
      ...(b.bytes !== undefined ? { kb: kb(b.bytes) } : {}),
      ...(b.ownBytes !== undefined ? { ownKb: kb(b.ownBytes) } : {}),
      ...(sdkBytes !== undefined ? { sdkKb: kb(sdkBytes) } : {}),
      budgetKb: budget / KB,
      verdict,
      sdkVerdict,
    };
  });
}

/** What each route leaves to a layer, against what it asks the stack for (its `layerPackages`). */
export interface LayerCheck {
  operationId: string;
  imported: string[];
  declared: string[];
  verdict: 'OK' | 'MISMATCH';
}

/**
 * The layer packages each bundle imports (statically or at first use) must be exactly its
 * route's `layerPackages`: one missing is a function that fails on AWS at its first use of the
 * package, one too many a layer for nothing. A package the bundle only finds by resolving its
 * folder at run time (the embedded face model) counts for a route that declares it, without
 * being required of one that does not: the text is in every bundle that holds the local face
 * engine, the watchlist routes' included, which on AWS run Rekognition and never that code.
 */
export function checkLayerPackages(routes: readonly RouteDef[], bundles: readonly BundleResult[]): LayerCheck[] {
  const isLayer = (p: string) => (LAYER_PACKAGES as readonly string[]).includes(p);
  return routes.map((route) => {
    const bundle = bundles.find((b) => b.operationId === route.operationId);
    const declared: string[] = [...(route.layerPackages ?? [])].sort();
    const resolved = (bundle?.resolvedLayerPackages ?? []).filter((p) => declared.includes(p));
    const imported = [...new Set([...(bundle?.externals ?? []), ...(bundle?.deferredExternals ?? []), ...resolved].filter(isLayer))].sort();
    return { operationId: route.operationId, imported, declared, verdict: imported.join() === declared.join() ? 'OK' : 'MISMATCH' };
  });
}

/** The bundle and layer budgets broken, one line each (empty when every one holds). */
export function brokenBundleBudgets(routes: readonly RouteDef[], judged: readonly JudgedBundle[], layers: readonly LayerCheck[]): string[] {
  const broken: string[] = [];
  for (const b of judged) {
    if (b.verdict === 'ERROR') broken.push(`bundle of ${b.operationId}: did not build (${(b.error ?? 'no size').split('\n')[0]})`);
    else if (b.verdict === 'OVER') broken.push(`bundle of ${b.operationId}: ${b.ownKb} KB without the AWS SDK, over its budget of ${b.budgetKb} KB`);
    if (b.verdict !== 'ERROR' && b.sdkVerdict === 'OVER') {
      broken.push(`bundle of ${b.operationId}: the AWS SDK adds ${b.sdkKb} KB, over SDK_BUNDLE_BUDGET's ${SDK_BUNDLE_BUDGET.kb} KB`);
    }
  }
  const operationIds = new Set(routes.map((r) => r.operationId));
  for (const [operationId, own] of Object.entries(ROUTE_BUNDLE_BUDGETS)) {
    const b = judged.find((j) => j.operationId === operationId);
    if (!operationIds.has(operationId)) broken.push(`ROUTE_BUNDLE_BUDGETS names ${operationId}, which is no route: remove it`);
    else if (b?.ownBytes !== undefined && b.ownBytes <= BUNDLE_LIMIT_BYTES) {
      broken.push(`ROUTE_BUNDLE_BUDGETS keeps ${own.kb} KB for ${operationId}, now ${b.ownKb} KB, within ${BUNDLE_LIMIT_BYTES / KB} KB: remove its entry`);
    }
  }
  for (const l of layers) {
    if (l.verdict !== 'OK') broken.push(`layer packages of ${l.operationId}: bundle imports ${l.imported.join(', ') || 'none'}, route declares ${l.declared.join(', ') || 'none'}`);
  }
  return broken;
}

/** The bundle table (with the size before beside each), the before/after line and the routes with budgets of their own. */
export function bundleReport(judged: readonly JudgedBundle[]): string {
  const overDefault = judged.filter((b) => (b.ownBytes ?? 0) > BUNDLE_LIMIT_BYTES);
  const largest = [...judged].sort((a, b) => (b.ownBytes ?? 0) - (a.ownBytes ?? 0))[0];
  const largestDeployed = [...judged].sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0))[0];
  const sdk = judged.filter((b) => b.sdkKb !== undefined).map((b) => b.sdkKb!).sort((a, b) => a - b);
  const page = judged.find((b) => b.operationId === 'showJourney');
  const before = Object.entries(BUNDLES_BEFORE.kb);
  return [
    table([
      ['operation', 'handler', 'KB without SDK (judged)', 'bytes without SDK', 'budget KB', `KB at ${BUNDLES_BEFORE.commit}`, 'result', 'SDK KB', 'SDK result', 'KB deployed', 'largest parts (KB)'],
      ...judged.map((b) => [
        b.operationId,
        b.handler,
        b.ownKb ?? '-',
        b.ownBytes ?? '-',
        b.budgetKb,
        Object.hasOwn(BUNDLES_BEFORE.kb, b.operationId) ? BUNDLES_BEFORE.kb[b.operationId]! : '',
        b.error ? `ERROR ${b.error.split('\n')[0]}` : b.verdict,
        b.sdkKb ?? '-',
        b.error ? '-' : b.sdkVerdict,
        b.kb ?? '-',
        b.largest.map((l) => `${l.name} ${kb(l.bytes)}`).join(', '),
      ]),
    ]),
    '',
    `Before (commit ${BUNDLES_BEFORE.commit}): ${before.length} of ${judged.length} routes over ${BUNDLE_LIMIT_BYTES / KB} KB, the journey page ` +
      `(showJourney) ${BUNDLES_BEFORE.kb.showJourney} KB. Now: ${overDefault.length} over ${BUNDLE_LIMIT_BYTES / KB} KB, each within a budget of its own; ` +
      `showJourney ${page?.ownKb ?? '-'} KB; the largest ${largest?.operationId} ${largest?.ownKb ?? '-'} KB (all without the AWS SDK).`,
    `The AWS SDK bundled adds ${sdk[0] ?? '-'} to ${sdk.at(-1) ?? '-'} KB a route (median ${sdk.length ? sdk[Math.floor(sdk.length / 2)] : '-'} KB; ` +
      `SDK_BUNDLE_BUDGET ${SDK_BUNDLE_BUDGET.kb} KB); deployed, the largest is ${largestDeployed?.operationId} ${largestDeployed?.kb ?? '-'} KB.`,
    `Budgets of their own (test/bench/bundle-budgets.ts, ROUTE_BUNDLE_BUDGETS):`,
    ...Object.entries(ROUTE_BUNDLE_BUDGETS).map(([op, own]) => {
      const b = judged.find((j) => j.operationId === op);
      return `  ${op}: ${own.kb} KB (now ${b?.ownKb ?? '-'} KB without the SDK): ${own.why}`;
    }),
  ].join('\n');
}
