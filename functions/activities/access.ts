import type { TableAction } from '../http/route.js';

/**
 * The table actions of the activity function, as the route table lists them for routes (the
 * CDK stack grants exactly these, the least-privilege check compares them with use):
 * - UpdateItem: a user step records where the journey waits;
 * - GetItem: the identity store's reads (store, user, passcode, registration session);
 * - PutItem, DeleteItem: the identity store's writes (a user and its external id, a passcode,
 *   an event; a completed registration session is deleted), in transactions.
 */
export const ACTIVITY_TABLE_ACTIONS: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
