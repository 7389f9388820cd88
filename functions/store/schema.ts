/**
 * The single table's shape. The CDK stack and the local runtime both build the table from this
 * module, so the two can never drift.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL deletes items after it (late), reads treat them as gone at once. */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [
    /**
     * A tenant's instances by creation time: the instance lists and searches (route queries).
     * Also each instance's events (`PIEVT#{id}`), by time: the outbox items of instance events
     * carry these keys (functions/store/keys.ts instanceEventIndex).
     */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL', queriedByRoutes: true },
    /**
     * Open instances (no final status yet) by when the reconciler next asks about their
     * execution. Sparse: an instance leaves it when its status becomes final, so the
     * reconciler's scan reads only open instances, and only their keys.
     */
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'KEYS_ONLY', queriedByRoutes: false },
    /**
     * Webhook deliveries not yet settled, by when the sweeper may take one whose queue message
     * was lost (`sweepAt`). Sparse: a delivery leaves it when it is delivered, failed or
     * discarded, so the sweeper's scan reads only PENDING deliveries' keys, never the table.
     */
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: 'KEYS_ONLY', queriedByRoutes: false },
  ],
} as const;

export type TableSchema = typeof TABLE_SCHEMA;

/** The reconciler's index of open instances (see TABLE_SCHEMA). */
export const OPEN_INSTANCES_INDEX = 'GSI2';

/** The webhook sweeper's index of PENDING deliveries (see TABLE_SCHEMA). */
export const DUE_DELIVERIES_INDEX = 'GSI3';

/** The index an instance's events are read from (see TABLE_SCHEMA; keys.instanceEventIndex). */
export const INSTANCE_EVENTS_INDEX = 'GSI1';
