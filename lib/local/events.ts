import { EventEmitter } from 'node:events';
import type { EventPublisher, InstanceEvent } from '../../functions/events/publisher.js';
import { log } from '../../functions/http/log.js';

/** Subscribers of the local bus (webhooks will hang off it): `bus.on('event', fn)`. */
export const localBus = new EventEmitter();

/**
 * The in-process stand-in for EventBridge: each event is logged as one JSON record (so it can be
 * followed in the service log) and emitted on the local bus.
 */
export function localEventBus(): EventPublisher {
  return {
    async publish(event: InstanceEvent) {
      log().info('event', { event });
      localBus.emit('event', event);
    },
  };
}
