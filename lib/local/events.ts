import { EventEmitter } from 'node:events';
import {
  EVENTBRIDGE_MAX_ENTRY_BYTES,
  putEventsEntry,
  putEventsEntrySize,
  type EventPublisher,
  type InstanceEvent,
} from '../../functions/events/publisher.js';
import { log } from '../../functions/http/log.js';

/** Subscribers of the local bus (webhooks will hang off it): `bus.on('event', fn)`. */
export const localBus = new EventEmitter();

/** What EventBridge's PutEvents throws for an entry over its size limit (the SDK's error name). */
export class EventTooLargeError extends Error {
  override readonly name = 'ValidationException';
}

/**
 * The in-process stand-in for EventBridge: each event is logged as one JSON record (so it can be
 * followed in the service log) and emitted on the local bus. An event whose PutEvents entry is
 * over EventBridge's 256 KB is refused, as PutEvents refuses it, and reaches no subscriber.
 */
export function localEventBus(): EventPublisher {
  return {
    async publish(event: InstanceEvent) {
      const size = putEventsEntrySize(putEventsEntry(event));
      if (size > EVENTBRIDGE_MAX_ENTRY_BYTES) {
        throw new EventTooLargeError(`Total size of the entries in the request is over the limit: ${size} bytes, EventBridge takes at most ${EVENTBRIDGE_MAX_ENTRY_BYTES}.`);
      }
      log().info('event', { event });
      localBus.emit('event', event);
    },
  };
}
