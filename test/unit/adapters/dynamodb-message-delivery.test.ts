import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbMessageStore } from '../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { Unavailable } from '../../../lambdas/core/errors';
import { deliveredMessageId } from '../../../lambdas/core/ids';
import type { MessageRecord } from '../../../lambdas/core/mail-ports';

const dynamo = mockClient(DynamoDBDocumentClient);
const store = new DynamoDbMessageStore(createDocumentClient({ endpoint: 'http://127.0.0.1:9' }), 'messages');
beforeEach(() => dynamo.reset());

const message: MessageRecord = {
  messageId: deliveredMessageId('sha256:abc', 'eml_1234567890', 7),
  emailId: 'eml_1234567890',
  accountId: 'acc_1',
  mailId: '1795000000000-AbCdEfGhIjKl',
  from: 'a@example.org',
  to: ['b@example.test'],
  subject: 's',
  receivedAt: '2026-11-22T12:00:00.000Z',
  expiresAt: '2026-11-22T12:15:00.000Z',
  sizeBytes: 10,
  text: { inline: 't' },
  html: { inline: '' },
  attachments: { inline: [] },
  attachmentCount: 0,
  rawKey: 'mail/1795000000000-AbCdEfGhIjKl/raw',
};

describe('writing a delivered message', () => {
  it('derives one message id per mail identity, email and delivery window, shaped like any message id', () => {
    expect(message.messageId).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567890', 7)).toBe(message.messageId);
    expect(deliveredMessageId('sha256:abd', 'eml_1234567890', 7)).not.toBe(message.messageId);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567891', 7)).not.toBe(message.messageId);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567890', 8)).not.toBe(message.messageId);
  });

  it('writes it only where no message has its id, and says created', async () => {
    dynamo.on(PutCommand).resolves({});
    await expect(store.put(message)).resolves.toBe('created');
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe('attribute_not_exists(message_id)');
  });

  it('says exists when an earlier delivery already wrote it, leaving it as it is', async () => {
    dynamo.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    await expect(store.put(message)).resolves.toBe('exists');
  });

  it('answers a throttled write as Unavailable, for the sender to retry', async () => {
    dynamo.on(PutCommand).rejects(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(store.put(message)).rejects.toBeInstanceOf(Unavailable);
  });
});
