import { EventEmitter } from 'node:events';
import {
  EVENTBRIDGE_MAX_ENTRIES,
  EVENTBRIDGE_MAX_ENTRY_BYTES,
  putEventsEntry,
  putEventsEntrySize,
  type EventBus,
} from '../../functions/events/bus.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { log } from '../../functions/observability/logger.js';

/** Subscribers of the local bus: `localBus.on('event', (e: EventEnvelope) => ...)`. */
export const localBus = new EventEmitter();

/** What EventBridge's PutEvents throws for a request over its limits (the SDK's error name). */
export class PutEventsValidationError extends Error {
  override readonly name = 'ValidationException';
}

/**
 * The in-process stand-in for the stack's EventBridge bus: each event is logged as one record
 * (JSON, or its type and subject in npm start's terminal format), so it can be followed in the
 * service log, and emitted on the local bus. A request
 * PutEvents would refuse (over 10 entries, or over 256 KB together) is refused whole, as
 * PutEvents refuses it, and reaches no subscriber.
 */
export function localEventBus(): EventBus {
  return {
    async put(events: readonly EventEnvelope[]) {
      if (events.length > EVENTBRIDGE_MAX_ENTRIES) {
        throw new PutEventsValidationError(`PutEvents takes at most ${EVENTBRIDGE_MAX_ENTRIES} entries; got ${events.length}.`);
      }
      const size = events.reduce((n, e) => n + putEventsEntrySize(putEventsEntry(e)), 0);
      if (size > EVENTBRIDGE_MAX_ENTRY_BYTES) {
        throw new PutEventsValidationError(`Total size of the entries in the request is over the limit: ${size} bytes, EventBridge takes at most ${EVENTBRIDGE_MAX_ENTRY_BYTES}.`);
      }
      for (const event of events) {
        log().info('event', { event });
        localBus.emit('event', event);
      }
      return undefined;
    },
  };
}
