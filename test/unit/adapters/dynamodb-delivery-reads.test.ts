import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbDeliveryReads } from '../../../lambdas/adapters/dynamodb/dynamodb-delivery-reads';

const dynamo = mockClient(DynamoDBDocumentClient);
const reads = new DynamoDbDeliveryReads(createDocumentClient({ endpoint: 'http://127.0.0.1:9' }), {
  domains: 'domains',
  addresses: 'addresses',
  emails: 'emails',
  messages: 'messages',
});
beforeEach(() => dynamo.reset());

describe('DynamoDbDeliveryReads: the delivery path\'s reads in one BatchGetItem', () => {
  it('reads domains, registry entries, emails and messages in one request, emails and messages consistently, each key once', async () => {
    const email = {
      email_id: 'eml_2',
      account_id: 'acc_1',
      address: 'b@example.com',
      local_part: 'b',
      domain: 'example.com',
      created_at: '2026-11-01T00:00:00.000Z',
      expires_at: '2026-12-01T00:00:00.000Z',
      ttl: 1,
    };
    dynamo.on(BatchGetCommand).resolves({
      Responses: {
        domains: [{ domain: 'example.com', create_enabled: true, receive_enabled: false }],
        addresses: [{ address: 'a@example.com', email_id: 'eml_1' }],
        emails: [email],
        messages: [],
      },
    });
    const found = await reads.read({ domains: ['example.com', 'example.com'], addresses: ['a@example.com'], emailIds: ['eml_2'], messageIds: ['msg_1'] });
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems).toEqual({
      domains: { Keys: [{ domain: 'example.com' }] },
      addresses: { Keys: [{ address: 'a@example.com' }] },
      emails: { Keys: [{ email_id: 'eml_2' }], ConsistentRead: true },
      messages: { Keys: [{ message_id: 'msg_1' }], ConsistentRead: true },
    });
    expect(found.domains.get('example.com')).toEqual({ domain: 'example.com', createEnabled: true, receiveEnabled: false });
    expect(found.emailIds.get('a@example.com')).toBe('eml_1');
    expect(found.emails.get('eml_2')).toEqual({
      emailId: 'eml_2',
      accountId: 'acc_1',
      address: 'b@example.com',
      localPart: 'b',
      domain: 'example.com',
      createdAt: '2026-11-01T00:00:00.000Z',
      expiresAt: '2026-12-01T00:00:00.000Z',
    });
    expect(found.messages.size).toBe(0);
  });

  it('asks again for the keys DynamoDB left unprocessed, and splits more than 100 keys', async () => {
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: {}, UnprocessedKeys: { addresses: { Keys: [{ address: 'a0@example.com' }] } } })
      .resolves({ Responses: { addresses: [{ address: 'a0@example.com', email_id: 'eml_0' }] } });
    const addresses = Array.from({ length: 150 }, (_, n) => `a${n}@example.com`);
    const found = await reads.read({ addresses });
    const requests = dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems!);
    expect(requests.map((request) => request.addresses!.Keys!.length)).toEqual([100, 1, 50]);
    expect(found.emailIds.get('a0@example.com')).toBe('eml_0');
  });

  // Throttling as Unavailable, as every adapter's: test/unit/adapters/dynamodb/storage-error-mapping.test.ts.
});
