/**
 * The single table's shape. The CDK stack and the local runtime both build the table from this
 * module, so the two can never drift.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL deletes items after it (late), reads treat them as gone at once. */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
} as const;

export type TableSchema = typeof TABLE_SCHEMA;
