import { describe, expect, it } from 'vitest';
import { OUTSIDE_TENANT, partitionKeys } from '../../lib/local/aws-usage.js';
import { compareUsage } from '../integration/aws-access.js';

// The local runtime's stand-in for the tenant roles' leading-key conditions: which partitions a
// request names, and which of them a route acting for a tenant may touch.

describe('partitionKeys (as dynamodb:LeadingKeys sees a request)', () => {
  it('reads the partition key of every request shape, marshalled or not', () => {
    expect(partitionKeys('GetItem', { Key: { PK: 'TNT#a#X', SK: 'Y' } })).toEqual(['TNT#a#X']);
    expect(partitionKeys('UpdateItem', { Key: { PK: { S: 'TNT#a#X' }, SK: { S: 'Y' } } })).toEqual(['TNT#a#X']);
    expect(partitionKeys('PutItem', { Item: { PK: 'TNT#b#X', SK: 'Y' } })).toEqual(['TNT#b#X']);
    expect(partitionKeys('Query', { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': 'TNT#a#I', ':sk': 'x' } })).toEqual(['TNT#a#I']);
    expect(
      partitionKeys('Query', { IndexName: 'GSI1', KeyConditionExpression: '#p = :v AND #s > :t', ExpressionAttributeNames: { '#p': 'GSI1PK', '#s': 'GSI1SK' }, ExpressionAttributeValues: { ':v': { S: 'TNT#c#V' }, ':t': { S: '1' } } }),
    ).toEqual(['TNT#c#V']);
    expect(partitionKeys('Query', { KeyConditionExpression: 'SK = :s', ExpressionAttributeValues: { ':s': 'x' } })).toEqual(['(no partition key)']);
    expect(partitionKeys('BatchGetItem', { RequestItems: { t: { Keys: [{ PK: 'TNT#a#1', SK: '1' }, { PK: 'TNT#b#2', SK: '2' }] } } })).toEqual(['TNT#a#1', 'TNT#b#2']);
    expect(partitionKeys('BatchWriteItem', { RequestItems: { t: [{ PutRequest: { Item: { PK: 'TNT#a#1' } } }, { DeleteRequest: { Key: { PK: 'TNT#b#2' } } }] } })).toEqual(['TNT#a#1', 'TNT#b#2']);
    expect(
      partitionKeys('TransactWriteItems', {
        TransactItems: [{ Put: { Item: { PK: 'TNT#a#1' } } }, { Update: { Key: { PK: 'SVC#SM#m' } } }, { ConditionCheck: { Key: { PK: 'TNT#a#2' } } }, { Delete: { Key: { PK: 'TNT#a#3' } } }],
      }),
    ).toEqual(['TNT#a#1', 'SVC#SM#m', 'TNT#a#2', 'TNT#a#3']);
    expect(partitionKeys('Scan', { IndexName: 'GSI2' })).toEqual(['(scan)']);
  });
});

describe('compareUsage on partitions outside the tenant', () => {
  it("names a route that touched another tenant's partition, and lets a publication count its state machine's users", () => {
    const problems = compareUsage({
      [OUTSIDE_TENANT]: ['getProcessInstance TNT#beta#INST#1', 'createProcessDefinition SVC#SM#abc', 'getProcessInstance SVC#SM#abc', 'createProcessDefinition SVC#JANITOR'],
    });
    expect(problems.filter((p) => p.includes('outside the tenant'))).toEqual([
      'getProcessInstance touched partition TNT#beta#INST#1 outside the tenant it acts for, which its tenant role is not granted',
      'getProcessInstance touched partition SVC#SM#abc outside the tenant it acts for, which its tenant role is not granted',
      'createProcessDefinition touched partition SVC#JANITOR outside the tenant it acts for, which its tenant role is not granted',
    ]);
  });
});
