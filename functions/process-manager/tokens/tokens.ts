import { randomUUID } from 'node:crypto';
import { apiError, InvalidCursorError, ValidationError, type ErrorDetail } from '../../errors.js';
import { orderedPage } from '../../shared/keyed-list.js';
import { likePattern, parseSort, sortBy, toPage, type CursorPage, type SortOrder } from '../../shared/page.js';
import { PROCESS_TOKEN_SORTABLE, type ProcessTokenCreateInput } from './token-schemas.js';
import type { DefinitionStore, ProcessTokenRecord, ProcessTokenStore } from '../model.js';
import { DefinitionNotActiveError } from '../definitions/definitions.js';
import { checkSandbox } from '../sandbox.js';

export type { ProcessTokenRecord, ProcessTokenStatus, ProcessTokenStore, ProcessTokenType } from '../model.js';

export class ProcessTokenNameTakenError extends apiError('PROCESS_TOKEN_NAME_TAKEN') {
  constructor(name: string) {
    super(`A process token named "${name}" already exists in this tenant.`);
  }
}

export class ProcessTokenNotFoundError extends apiError('PROCESS_TOKEN_NOT_FOUND') {
  constructor(id: string) {
    super(`Process token ${id} was not found.`);
  }
}

export interface TokenContext {
  tenantId: string;
  actor: string;
  now: Date;
  /** `https://{tenant}.{region}.{domain}`: the service's own UI lives here. */
  tenantOrigin: string;
  /** The definition named by name + version, or by tag, as the store found it. */
  definitionFound: boolean;
  /** Its id, for a name + version token. */
  definitionId?: string | undefined;
}

/**
 * The path of the family's hosted-UI link on the tenant's host: a token whose `uiUrl` is it hands
 * out `uiUrl?pt=<token id>`, which starts an instance as `startProcessAddress` does
 * (createProcessInstanceFromLink).
 */
export const HOSTED_UI_PATH = '/web/trustweb';

/**
 * Whether a `uiUrl` is one of the service's own user interfaces: on the tenant's own origin, at
 * the journey pages (`/journey`) or the family's hosted-UI link (`/web/trustweb`), a trailing
 * slash either way. The URL is kept as given.
 */
export function isOwnUi(uiUrl: string, tenantOrigin: string): boolean {
  const url = new URL(uiUrl);
  if (url.origin !== new URL(tenantOrigin).origin) return false;
  const path = url.pathname.endsWith('/') && url.pathname.length > 1 ? url.pathname.slice(0, -1) : url.pathname;
  return path === '/journey' || path === HOSTED_UI_PATH;
}

/** Validates a new token against the rules the schema alone cannot express. */
export function newProcessToken(input: ProcessTokenCreateInput, ctx: TokenContext): ProcessTokenRecord {
  const details: ErrorDetail[] = [];
  const type = input.type ?? 'UNLIMITED';
  const byName = input.processDefnName !== undefined || input.processDefnVersion !== undefined;
  const byTag = input.processDefnTag !== undefined;
  if (byName && byTag) {
    details.push({ location: 'body.processDefnTag', message: 'give either processDefnName and processDefnVersion, or processDefnTag, not both' });
  } else if (!byName && !byTag) {
    details.push({ location: 'body.processDefnName', message: 'give processDefnName and processDefnVersion, or processDefnTag' });
  } else if (byName && (input.processDefnName === undefined || input.processDefnVersion === undefined)) {
    details.push({
      location: input.processDefnName === undefined ? 'body.processDefnName' : 'body.processDefnVersion',
      message: 'processDefnName and processDefnVersion go together',
    });
  } else if (!ctx.definitionFound) {
    details.push(
      byTag
        ? { location: 'body.processDefnTag', message: `no process definition carries the tag "${input.processDefnTag}"` }
        : {
            location: 'body.processDefnName',
            message: `no process definition "${input.processDefnName}" version ${input.processDefnVersion}`,
          },
    );
  }

  if (type === 'MULTI_USE_COUNT_LIMITED' && input.maxCount === undefined) {
    details.push({ location: 'body.maxCount', message: 'a MULTI_USE_COUNT_LIMITED token needs maxCount' });
  }
  if (type !== 'MULTI_USE_COUNT_LIMITED' && input.maxCount !== undefined) {
    details.push({ location: 'body.maxCount', message: 'maxCount applies to MULTI_USE_COUNT_LIMITED tokens only' });
  }
  // notBeforeDtm / notAfterDtm: the names some of the family's clients use for the same bounds.
  const validity = (name: 'validFromDtm' | 'validToDtm', alias: 'notBeforeDtm' | 'notAfterDtm') => {
    const [given, aliased] = [input[name], input[alias]];
    if (given !== undefined && aliased !== undefined && Date.parse(given) !== Date.parse(aliased)) {
      details.push({ location: `body.${alias}`, message: `names another instant than ${name}; send one of the two` });
    }
    return given ?? aliased;
  };
  const [from, to] = [validity('validFromDtm', 'notBeforeDtm'), validity('validToDtm', 'notAfterDtm')];
  let validFromDtm: string | null = null;
  let validToDtm: string | null = null;
  if (type === 'MULTI_USE_TIME_LIMITED') {
    validFromDtm = new Date(from ?? ctx.now).toISOString();
    if (!to) {
      details.push({ location: 'body.validToDtm', message: 'a MULTI_USE_TIME_LIMITED token needs validToDtm' });
    } else {
      validToDtm = new Date(to).toISOString();
      if (validToDtm <= validFromDtm) details.push({ location: 'body.validToDtm', message: 'must be after validFromDtm' });
      else if (new Date(validToDtm) <= ctx.now) details.push({ location: 'body.validToDtm', message: 'must be in the future' });
    }
  } else if (from !== undefined || to !== undefined) {
    details.push({ location: 'body.validToDtm', message: 'validFromDtm and validToDtm apply to MULTI_USE_TIME_LIMITED tokens only' });
  }

  const ownUi = `${ctx.tenantOrigin}/journey`;
  if (input.uiUrl !== undefined && !isOwnUi(input.uiUrl, ctx.tenantOrigin)) {
    details.push({
      location: 'body.uiUrl',
      message: `only the service's own user interfaces are supported: omit uiUrl, or use ${ownUi} or ${ctx.tenantOrigin}${HOSTED_UI_PATH}`,
    });
  }
  if (details.length) throw new ValidationError('The process token is not valid.', details);
  const forTest = input.forTest === true;
  const refused = checkSandbox(forTest, input.sandbox);
  if (refused) throw refused;

  return {
    tenantId: ctx.tenantId,
    id: randomUUID(),
    name: input.name,
    description: input.description ?? '',
    status: input.status ?? 'ACTIVE',
    type,
    maxCount: input.maxCount ?? null,
    counter: 0,
    validFromDtm,
    validToDtm,
    processDefnName: input.processDefnName ?? null,
    processDefnVersion: input.processDefnVersion ?? null,
    processDefnTag: input.processDefnTag ?? null,
    processDefnId: input.processDefnTag === undefined ? (ctx.definitionId ?? null) : null,
    uiUrl: input.uiUrl ?? ownUi,
    parameters: input.parameters ?? {},
    processInstanceInit: input.processInstanceInit ?? null,
    maxProcessDuration: input.maxProcessDuration ?? null,
    createdDtm: ctx.now.toISOString(),
    createdBy: ctx.actor,
    ...(forTest ? { forTest: true as const } : {}),
    ...(forTest && input.sandbox ? { sandbox: input.sandbox } : {}),
  };
}

export function tokenView(r: ProcessTokenRecord, tenantOrigin: string) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    status: r.status,
    type: r.type,
    maxCount: r.maxCount,
    counter: r.counter,
    validFromDtm: r.validFromDtm,
    validToDtm: r.validToDtm,
    processDefnName: r.processDefnName,
    processDefnVersion: r.processDefnVersion,
    processDefnTag: r.processDefnTag,
    uiUrl: r.uiUrl,
    parameters: r.parameters,
    processInstanceInit: r.processInstanceInit,
    maxProcessDuration: r.maxProcessDuration,
    startProcessAddress: `${tenantOrigin}/api/process-manager/processInstances/create?pt=${r.id}`,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    // Only on a test-mode token: a live token's answer is as it was.
    ...(r.forTest ? { forTest: true as const } : {}),
    ...(r.forTest && r.sandbox ? { sandbox: r.sandbox } : {}),
  };
}

/**
 * A page of the tenant's live tokens (docs/lists.md). By creation time (the default, or
 * `sort=createdDtm[,desc]`) a page reads its own list views and tokens, by cursor or by number;
 * a `name` pattern is matched on the views. Other sorts sort the (matching) tokens in memory, at
 * most LIST_SORT_CAP. A tenant whose tokens have no views yet (made before views, not yet
 * backfilled) is read whole, as before.
 */
export async function tokenPage(
  tokens: Pick<ProcessTokenStore, 'viewed' | 'list' | 'byCreation'>,
  tenantId: string,
  query: { name: string; page: number; size: number; sort: string[]; cursor?: string | undefined },
  tenantOrigin: string,
  now: Date,
): Promise<CursorPage<ReturnType<typeof tokenView>>> {
  const { orders, errors } = parseSort(query.sort, PROCESS_TOKEN_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const pattern = likePattern(query.name);
  const view = (records: ProcessTokenRecord[]) => records.map((r) => tokenView(r, tenantOrigin));
  const tieBreak = [{ property: 'createdDtm', direction: 'asc' }] as SortOrder<(typeof PROCESS_TOKEN_SORTABLE)[number]>[];
  if (!(await tokens.viewed(tenantId))) {
    if (query.cursor) throw new InvalidCursorError(undefined, [{ location: 'query.cursor', message: 'this tenant\'s tokens page by number until `operator backfill-lists` has run' }]);
    const ordered = sortBy((await tokens.list(tenantId)).filter((r) => pattern.test(r.name)), [...orders, ...tieBreak], (r, k) => r[k]);
    return { ...toPage(view(ordered), query.page, query.size, orders.length > 0), nextCursor: null, totalElementsCapped: false };
  }
  const source = tokens.byCreation(tenantId, now);
  const filter = query.name === '%' ? undefined : { test: (r: Partial<ProcessTokenRecord>) => pattern.test(r.name ?? ''), attributes: ['name'] };
  return orderedPage(source, {
    key: 'createdDtm',
    binding: { tenantId, list: 'processTokens', query: [query.name, orders] },
    query,
    orders,
    tieBreak,
    filter,
    value: (r, k) => r[k],
    view,
    instead: 'sort by createdDtm (either way), whose pages read only themselves, or narrow the name pattern',
  });
}

export const DEPRECATION_WARNING = 'maxProcessDuration is deprecated since 2025-08-18, is ignored, and will be removed.';

/**
 * Makes a process token: the definition it names is looked up (by tag, or by name + version,
 * whose id the token keeps), the token checked and stored under its unique name.
 */
export async function createProcessToken(
  d: { definitions: Pick<DefinitionStore, 'getTag' | 'versionRef'>; tokens: Pick<ProcessTokenStore, 'create'> },
  input: ProcessTokenCreateInput,
  ctx: Omit<TokenContext, 'definitionFound' | 'definitionId'>,
): Promise<ProcessTokenRecord> {
  let definitionFound = false;
  let definitionId: string | undefined;
  if (input.processDefnTag !== undefined) {
    definitionFound = !!(await d.definitions.getTag(ctx.tenantId, input.processDefnTag));
  } else if (input.processDefnName !== undefined && input.processDefnVersion !== undefined) {
    const version = Number(input.processDefnVersion);
    const ref = await d.definitions.versionRef(ctx.tenantId, input.processDefnName, version);
    // Only an active version takes tokens (a tag's definition is checked when an instance starts: the tag may move).
    if (ref && ref.status !== 'DEPLOYED_ACTIVE') throw new DefinitionNotActiveError(input.processDefnName, version, ref.status);
    definitionId = ref?.processDefinitionId;
    definitionFound = definitionId !== undefined;
  }
  const record = newProcessToken(input, { ...ctx, definitionFound, definitionId });
  if (!(await d.tokens.create(record))) throw new ProcessTokenNameTakenError(record.name);
  return record;
}

export async function getProcessToken(tokens: Pick<ProcessTokenStore, 'get'>, tenantId: string, id: string): Promise<ProcessTokenRecord> {
  const record = await tokens.get(tenantId, id);
  if (!record) throw new ProcessTokenNotFoundError(id);
  return record;
}
