/** The stores the relay reads (the one place functions/events/ reaches store/). */
import { outboxStore } from '../store/outbox.js';
import { eventBus } from './bus.js';
import type { RelayDeps } from './relay.js';

export const relayDeps: RelayDeps = { outbox: outboxStore, bus: eventBus };
