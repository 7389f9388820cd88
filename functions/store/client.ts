import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getStoreConfig } from '../config.js';

let raw: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;

/** The process's DynamoDB client, made on first use (constructing it makes no network call). */
export function dynamo(): { raw: DynamoDBClient; doc: DynamoDBDocumentClient; tableName: string } {
  const config = getStoreConfig();
  if (!raw || !doc) {
    raw = new DynamoDBClient(
      config.DYNAMODB_ENDPOINT
        ? {
            endpoint: config.DYNAMODB_ENDPOINT,
            // DynamoDB Local accepts any credentials; these keep the SDK from searching for some.
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            region: process.env.AWS_REGION ?? 'eu-west-1',
          }
        : {},
    );
    doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  }
  return { raw, doc, tableName: config.TABLE_NAME };
}
