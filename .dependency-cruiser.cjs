/**
 * The layers of the service and what may import what (docs/architecture.md, "Layers"). `npm test`
 * runs this first (`npm run lint:deps`): a cycle or an upward import fails the build.
 *
 * Bottom to top:
 *   base          functions/shared/, observability/ (logs, metrics, traces), errors.ts, config.ts,
 *                 auth/permissions.ts: import only base
 *   store         functions/store/ (the DynamoDB table) and functions/adapters/ (S3, SQS, KMS,
 *                 Lambda, Rekognition, the embedded face model): base, each other, and the
 *                 areas' model types (type-only), nothing else
 *   ports         functions/events/, functions/auth/ (tokens, signing, direct API keys), functions/http/
 *   areas         api-keys, tenants, process-manager, identity-store, userdata, journey, activities:
 *                 reach store/ and adapters/ only through their deps.ts, which sits at the
 *                 area's root (an area's resource folders, process-manager/instances/ and the
 *                 like, hold no deps.ts, model.ts or domain.ts of their own)
 *   top           functions/routes.ts, functions/platform/ (the route table and what is built from it)
 *   statemachines the definition format and compiler: base and functions/activities only
 *   lib/, bin/    the CDK app, the local runtime, CLIs: may import functions/; nothing in
 *                 functions/ or statemachines/ imports them (or test/)
 *
 * Type-only imports count (tsPreCompilationDeps): a type cycle is still a cycle.
 */
const BASE = '^functions/(shared/|observability/|errors\\.ts$|config\\.ts$|auth/permissions\\.ts$)';
/** The storage layer: the table's stores, and the adapters to the other services that keep or compute things. */
const STORAGE = '^functions/(store|adapters)/';
const AREAS = '^functions/(api-keys|tenants|process-manager|identity-store|userdata|journey|activities|exports|cloud-functions|faces|webhooks|theme-server)/';
/** Where an area declares its records and the storage interface it needs: at the area's root, never in a resource folder. */
const AREA_MODELS = '^functions/(api-keys|tenants|process-manager|identity-store|userdata|journey|exports|cloud-functions|faces|documents|webhooks|theme-server)/(model|domain)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included: every layer depends one way.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'base-is-the-bottom',
      severity: 'error',
      comment: 'shared/, observability/, errors, config and the permission names import nothing else of the service.',
      from: { path: BASE },
      to: { path: '^(functions|statemachines|lib|bin|test)/', pathNot: BASE },
    },
    {
      name: 'store-imports-only-base-keys-and-models',
      severity: 'error',
      comment:
        'store/ and adapters/ implement the storage interfaces and ports the areas declare: they may ' +
        'import base, each other\'s modules and the areas\' model files, never domain logic, handlers, ' +
        'http or errors (a store returns outcomes; the domain throws the API errors).',
      from: { path: STORAGE },
      to: {
        path: '^(functions|statemachines|lib|bin|test)/',
        pathNot: [BASE, STORAGE, AREA_MODELS],
      },
    },
    {
      name: 'store-imports-errors-never',
      severity: 'error',
      comment: 'A store or adapter returns outcomes (a union or a boolean); the domain throws the API errors.',
      from: { path: STORAGE },
      to: { path: '^functions/errors\\.ts$' },
    },
    {
      name: 'store-imports-models-as-types-only',
      severity: 'error',
      comment: 'store/ and adapters/ take only the types of an area\'s model: no code of an area ends up in the storage layer.',
      from: { path: STORAGE },
      to: { path: AREA_MODELS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-deps-wire-stores',
      severity: 'error',
      comment:
        'One wiring style: an area\'s deps.ts (at the area\'s root) puts its storage together; handlers ' +
        'and domain code, in whatever folder of the area, take stores and adapters from it (or as ' +
        'parameters), never from store/ or adapters/ directly.',
      from: { path: '^functions/', pathNot: [STORAGE, '^functions/[^/]+/deps\\.ts$'] },
      to: { path: STORAGE },
    },
    {
      name: 'models-are-leaves',
      severity: 'error',
      comment: 'A model file holds types and constants: it imports no store, adapter, wiring, handler or http code.',
      from: { path: '^functions/.+/model\\.ts$' },
      to: { path: ['^functions/(store|adapters|http)/', '^functions/[^/]+/deps\\.ts$', '^(lib|bin|test)/'] },
    },
    {
      name: 'http-is-http-only',
      severity: 'error',
      comment: 'The HTTP layer (wrapper, routes, responses) knows no area: areas plug into it, not the reverse.',
      from: { path: '^functions/http/' },
      to: { path: [AREAS, STORAGE, '^functions/platform/', '^functions/routes\\.ts$'] },
    },
    {
      name: 'ports-know-no-area',
      severity: 'error',
      comment:
        'events/ and auth/ sit below the areas; the one exception is the direct API-key check, ' +
        'which reads keys through the api-keys area\'s deps and domain.',
      from: { path: '^functions/(events|auth)/', pathNot: '^functions/auth/direct-key\\.ts$' },
      to: { path: [AREAS, '^functions/(http|platform)/', '^functions/routes\\.ts$'] },
    },
    {
      name: 'areas-import-no-top',
      severity: 'error',
      comment: 'Areas do not import the route table or the platform routes built from it.',
      from: { path: AREAS },
      to: { path: ['^functions/routes\\.ts$', '^functions/platform/'] },
    },
    {
      name: 'functions-import-no-lib-bin-test',
      severity: 'error',
      comment: 'What runs in Lambda never imports the CDK app, the local runtime, CLIs or tests.',
      from: { path: '^(functions|statemachines)/' },
      to: { path: '^(lib|bin|test)/' },
    },
    {
      name: 'lib-imports-no-bin-or-test',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(bin|test)/' },
    },
    {
      name: 'statemachines-import-only-base-and-activity-specs',
      severity: 'error',
      comment:
        'The definition format, catalogue and compiler sit below the areas: functions/shared, errors, and the activity specs (data), never a run function, screen, store or AWS client.',
      from: { path: '^statemachines/' },
      to: { path: '^functions/', pathNot: ['^functions/shared/', '^functions/errors\\.ts$', '^functions/activities/spec\\.ts$', '^functions/activities/specs/'] },
    },
    {
      name: 'compiler-reaches-no-store-journey-or-area',
      severity: 'error',
      comment: 'Nor does anything the compiler imports, however indirectly: its module graph holds no store/, journey/ or area module.',
      from: { path: '^statemachines/' },
      to: { path: [STORAGE, AREAS], pathNot: ['^functions/activities/spec\\.ts$', '^functions/activities/document-spec\\.ts$', '^functions/activities/specs/'], reachable: true },
    },
    {
      name: 'activity-specs-are-data',
      severity: 'error',
      comment: 'An activity spec imports only the spec helpers and the definition format: what reads the catalogue must not reach what runs.',
      from: { path: '^functions/activities/specs/' },
      to: { path: '^(functions|statemachines)/', pathNot: ['^functions/activities/spec\\.ts$', '^functions/activities/document-spec\\.ts$', '^functions/activities/specs/', '^statemachines/(definition|forms)\\.ts$', BASE] },
    },
    {
      name: 'activities-get-stores-from-their-context',
      severity: 'error',
      comment:
        'An activity module takes its stores and engines from its context (ServiceContext.deps, ' +
        'StepView.deps), never from a wiring file: the entry points that run activities give them ' +
        '(functions/activities/lambda.ts through deps.ts; the journey routes\' handlers).',
      from: { path: '^functions/activities/', pathNot: '^functions/activities/(deps|lambda|run)\\.ts$' },
      to: { path: '^functions/.*/deps\\.ts$' },
    },
    {
      name: 'sandbox-guest-imports-only-guest',
      severity: 'error',
      comment:
        'functions/cloud-functions/guest/ runs inside the QuickJS sandbox, bundled into one script ' +
        '(prelude.generated.ts, `npm run build:guest`): it imports only its own modules, no host module, package or Node built-in.',
      from: { path: '^functions/cloud-functions/guest/' },
      to: { pathNot: '^functions/cloud-functions/guest/' },
    },
    {
      name: 'sandbox-guest-runs-only-in-the-sandbox',
      severity: 'error',
      comment:
        'The host takes the guest code only as the bundled script (prelude.generated.ts) and its contract as types: ' +
        'importing a guest module would run the prelude in Node.',
      from: { pathNot: '^functions/cloud-functions/guest/' },
      to: { path: '^functions/cloud-functions/guest/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports and that imports nothing is dead, unless it is an entry point.',
      from: {
        orphan: true,
        // Entry points: CLIs, the pages' browser scripts, the face engine's worker thread, and the example custom pages' own scripts (uploaded, not imported).
        pathNot: ['\\.d\\.ts$', '(^|/)tsconfig\\.json$', '^bin/', '^functions/journey/client/', '^lib/local/face-engine-worker\\.mjs$', '^statemachines/examples/pages/'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^cdk\\.out', '^\\.local'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    moduleSystems: ['es6', 'cjs'],
    reporterOptions: { text: { highlightFocused: true } },
  },
};
