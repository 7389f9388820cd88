/**
 * The process manager's storage and ports, put together here and only here: handlers (and the
 * journey and the local runtime) import what they use from this module and hand it to the
 * domain functions. One binding per port, so a handler's bundle carries only the stores it uses.
 */
import { eventPublisher } from '../events/publisher.js';
import { definitionStore } from '../store/process-definitions.js';
import { processInstanceStore } from '../store/process-instances.js';
import { processTokenStore } from '../store/process-tokens.js';
import type { DefinitionStore, ProcessInstanceStore, ProcessTokenStore } from './model.js';
import { orchestrator } from './orchestrator.js';

export const definitions: DefinitionStore = definitionStore;
export const tokens: ProcessTokenStore = processTokenStore;
export const instances: ProcessInstanceStore = processInstanceStore;
/** The journey runner (Step Functions, or the local engine), made at first use. */
export { orchestrator };
/** Where instance events go (EventBridge, or the local bus), made at first use. */
export { eventPublisher as publisher };
