import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../../errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from './instance-schemas.js';
import {
  IdempotencyKeyReusedError,
  initialSession,
  newInstance,
  redirectUrl,
  tokenRefusal,
  ProcessTokenUnusableError,
} from './instances.js';
import { ProcessTokenNotFoundError } from '../tokens/tokens.js';
import { DefinitionNotActiveError, statusOf } from '../definitions/definitions.js';
import type { DefinitionStore, InstanceImageStore, Orchestrator, ProcessInstanceStore, ProcessTokenStore } from '../model.js';
import { faceUploadSlot, faceUploadTicket, type FaceUploadKey, type FaceUploadSlot, type FaceUploadTicket } from './face-uploads.js';
import { changeStatus, type StatusDeps } from './status.js';
import { instanceEvents } from '../../events/catalogue.js';
import { log } from '../../http/log.js';
import { stateFor } from '../../shared/session-state.js';
import { countInstanceCreated } from '../../observability/metrics.js';
import { publicThemePath } from '../../theme-server/theme-references.js';
import { resolvedTheme } from '../../theme-server/resolved-theme.js';
import type { ThemeStore } from '../../theme-server/model.js';

export interface CreateInstanceInput {
  tenantId: string;
  actor: string;
  origin: string;
  now: Date;
  processTokenId: string;
  extraParameters?: Record<string, string>;
  idempotencyKey?: string;
  /** Set on the one retry after a concurrent request with the same key won. */
  retried?: boolean;
}

/** What creating an instance needs: the three stores, the journey runner, the face upload signer. */
export interface CreateInstanceDeps extends StatusDeps {
  definitions: Pick<DefinitionStore, 'get' | 'getTag' | 'getByNameVersion'>;
  tokens: Pick<ProcessTokenStore, 'get'>;
  instances: Pick<ProcessInstanceStore, 'getIdempotent' | 'createWithToken' | 'get' | 'setStatus'>;
  orchestrator: () => Promise<Orchestrator>;
  /** Pre-signs the uploads a token's `processInstanceInit.externalSources.faceUploads` asks for. */
  uploads: Pick<InstanceImageStore, 'uploadUrl'>;
  faceUploadKey: FaceUploadKey;
  /** The definition's theme, read once here and kept with the instance (JourneyPages.theme). */
  themes: Pick<ThemeStore, 'get'>;
}

export function idempotencyKeyOf(headers: IncomingHttpHeaders | Record<string, string | undefined>): string | undefined {
  const key = headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ValidationError('Idempotency-Key must be 1 to 255 visible ASCII characters.', [
      { location: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
    ]);
  }
  return key;
}

/**
 * Creates an instance from a process token and starts its journey: read the token and its
 * definition, then one transaction (the token's use, the instance, the idempotency record),
 * then one StartExecution named after the instance.
 */
/** The answer to a creation (replayed as is for a retry with the same Idempotency-Key). */
export interface InstanceCreated {
  redirectUrl: string;
  processInstanceId: string;
  /** One upload per image key of the token's `processInstanceInit.externalSources.faceUploads`. */
  externalSources?: { faceUploads: Record<string, FaceUploadTicket> };
  /** The public JSON of the definition's theme, when it names one. */
  themeUrl?: string;
}

export async function createInstance(d: CreateInstanceDeps, input: CreateInstanceInput): Promise<InstanceCreated> {
  const { tenantId, now } = input;
  const fingerprint = JSON.stringify([input.processTokenId, input.extraParameters ?? {}]);
  if (input.idempotencyKey) {
    const earlier = await d.instances.getIdempotent(tenantId, input.idempotencyKey, now);
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      // Only a creation's answer is ever recorded under a key.
      return earlier.body as unknown as InstanceCreated;
    }
  }

  // Its own item only (one read): the creation's conditional write on a use shard decides whether a use is left.
  const token = await d.tokens.get(tenantId, input.processTokenId, { counted: false });
  if (!token) throw new ProcessTokenNotFoundError(input.processTokenId);
  const refusal = tokenRefusal(token, now);
  if (refusal) throw refusal;

  // A tag is resolved now (it may have moved); a name + version token carries its definition's id.
  const definition = token.processDefnTag
    ? await d.definitions.getTag(tenantId, token.processDefnTag).then((tag) => (tag ? d.definitions.get(tenantId, tag.processDefinitionId) : undefined))
    : token.processDefnId
      ? await d.definitions.get(tenantId, token.processDefnId)
      : await d.definitions.getByNameVersion(tenantId, token.processDefnName!, Number(token.processDefnVersion));
  if (!definition) {
    throw new ProcessTokenUnusableError('PROCESS_TOKEN_INACTIVE', 'The process definition of this token no longer exists.');
  }
  if (statusOf(definition) !== 'DEPLOYED_ACTIVE') throw new DefinitionNotActiveError(definition.name, definition.version, statusOf(definition));

  // The theme as it is now, painted on every page of the journey without another read (docs/themes.md).
  const theme = definition.themeId ? await resolvedTheme(d.themes, tenantId, definition.themeId) : undefined;
  const { record, capability } = newInstance(token, definition, {
    tenantId,
    actor: input.actor,
    now,
    origin: input.origin,
    theme,
    ...(input.extraParameters ? { extraParameters: input.extraParameters } : {}),
  });
  // An upload slot per image key the token names, each with a URL pre-signed for it alone.
  const requested = Object.entries(token.processInstanceInit?.externalSources.faceUploads ?? {});
  const slots: Record<string, FaceUploadSlot> = {};
  const tickets: Record<string, FaceUploadTicket> = {};
  for (const [imageKey, { imageFormat }] of requested) {
    slots[imageKey] = faceUploadSlot(d.faceUploadKey, tenantId, record.id, imageKey, imageFormat);
    tickets[imageKey] = await faceUploadTicket(d.uploads, tenantId, record.id, slots[imageKey]);
  }
  const body: InstanceCreated = {
    redirectUrl: redirectUrl(input.origin, record, capability),
    processInstanceId: record.id,
    ...(requested.length > 0 ? { externalSources: { faceUploads: tickets } } : {}),
    ...(definition.themeId ? { themeUrl: `${input.origin}${publicThemePath(definition.themeId)}` } : {}),
  };
  const session = initialSession(record, requested.length > 0 ? { faceUploads: slots } : undefined);
  // A definition published with its `sessionKeep` runs on a reference to the session, stored as
  // version 0 with the instance; one published before gets the whole session as its input.
  const keep = definition.sessionKeep;
  const created = await d.instances.createWithToken(
    record,
    token,
    now,
    instanceEvents.created(record, now),
    input.idempotencyKey ? { key: input.idempotencyKey, result: { fingerprint, status: 201, body: { ...body } } } : undefined,
    keep ? session : undefined,
  );
  if (created.outcome === 'tokenRefused') {
    // Re-read to say why: another request may have used the last count meanwhile.
    const latest = await d.tokens.get(tenantId, token.id);
    throw (latest && tokenRefusal(latest, now)) ?? new ProcessTokenUnusableError('PROCESS_TOKEN_EXHAUSTED', 'The process token cannot be used now.');
  }
  if (created.outcome === 'idempotencyKeyTaken') {
    // A concurrent request with the same key won: answer as it did.
    if (input.retried) throw new IdempotencyKeyReusedError();
    return createInstance(d, { ...input, retried: true });
  }

  try {
    await (await d.orchestrator()).startExecution({ stateMachineArn: record.stateMachineArn, name: record.id, input: keep ? stateFor({ tenantId, processInstanceId: record.id, v: 0 }, session, keep) : session });
  } catch (err) {
    log().error('could not start the journey', { processInstanceId: record.id, error: err as Error });
    await changeStatus(d, record, 'COMPLETED_PROCESS_ERROR', new Date());
    throw err;
  }
  await countInstanceCreated(tenantId, { forTest: record.forTest, processInstanceId: record.id });
  return body;
}
