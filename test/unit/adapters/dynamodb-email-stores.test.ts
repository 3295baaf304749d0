import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbAddressRegistry } from '../../../lambdas/adapters/dynamodb/dynamodb-address-registry';
import { DynamoDbEmailStore } from '../../../lambdas/adapters/dynamodb/dynamodb-email-store';

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => dynamo.reset());

describe('DynamoDbEmailStore', () => {
  const store = new DynamoDbEmailStore(client, 'emails');
  const email = {
    emailId: 'eml_1234567890',
    accountId: 'acc_1',
    address: 'a@example.test',
    localPart: 'a',
    domain: 'example.test',
    createdAt: '2026-11-22T12:00:00.000Z',
    expiresAt: '2026-12-22T12:00:00.000Z',
  };

  it('creates once, with a TTL a week after the reservation ends', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await store.create(email)).toBe('created');
    const input = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(email_id)');
    expect(input.Item!.ttl).toBe(Date.parse(email.expiresAt) / 1000 + 7 * 24 * 3600);
  });

  it('reports an email already stored by an earlier attempt as exists', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    expect(await store.create(email)).toBe('exists');
  });

  it('reads back what it wrote', async () => {
    dynamo.on(GetCommand).resolves({
      Item: { email_id: email.emailId, account_id: 'acc_1', address: email.address, local_part: 'a', domain: 'example.test', created_at: email.createdAt, expires_at: email.expiresAt, ttl: 1 },
    });
    expect(await store.get(email.emailId)).toEqual(email);
  });
});

describe('DynamoDbAddressRegistry', () => {
  const registry = new DynamoDbAddressRegistry(client, 'addresses');
  const entry = { address: 'a@example.test', emailId: 'eml_mine', accountId: 'acc_1', claimedAt: 'now' };

  it('claims an address that was never issued with one conditional put', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe('attribute_not_exists(address)');
  });

  it('recognizes its own earlier claim, and refuses anybody else', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: { address: entry.address, email_id: 'eml_mine' } })
      .resolvesOnce({ Item: { address: entry.address, email_id: 'eml_other' } });
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(await registry.claim(entry)).toEqual({ outcome: 'taken', heldBy: 'eml_other' });
  });
});

// The idempotency store's promises: test/unit/adapters/dynamodb/dynamodb-idempotency-store.test.ts, on dynalite.
