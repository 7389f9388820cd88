/** The service's logger lives in functions/observability/logger.ts (Powertools); kept here so call sites stay as they are. */
export { log, type Logger } from '../observability/logger.js';
