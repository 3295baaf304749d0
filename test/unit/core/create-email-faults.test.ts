import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { localTableNames } from '../../../lambdas/adapters/dynamodb/table-definitions';
import { createStores } from '../../../lambdas/composition/services';
import { createEmail } from '../../../lambdas/core/emails';
import { Unavailable } from '../../../lambdas/core/errors';
import { TestClock } from '../../support/test-clock';

const dynamo = mockClient(DynamoDBDocumentClient);
const tables = localTableNames();
const throttle = () =>
  new DynamoDBServiceException({ name: 'ThrottlingException', message: 'Rate exceeded', $fault: 'client', $metadata: {} });

function deps() {
  const stores = createStores({ tableNames: tables, client: createDocumentClient({ endpoint: 'http://127.0.0.1:9' }) });
  return { ...stores, clock: new TestClock(), emailTtlSeconds: 2_592_000 };
}

const request = { accountId: 'acc_1', idempotencyKey: 'unit-fault-key-0001', localPart: 'unit', domain: 'example.test' };

beforeEach(() => {
  dynamo.reset();
  dynamo.on(GetCommand, { TableName: tables.domains }).resolves({
    Item: { domain: 'example.test', create_enabled: true, receive_enabled: true },
  });
  dynamo.on(PutCommand).resolves({});
  dynamo.on(UpdateCommand).resolves({});
});

describe('createEmail over DynamoDB when storage fails', () => {
  it('gives up its lease, keeping the plan, when the email write is throttled', async () => {
    dynamo.on(PutCommand, { TableName: tables.emails }).rejects(throttle());
    await expect(createEmail(request, deps())).rejects.toBeInstanceOf(Unavailable);

    const claimed = dynamo.commandCalls(PutCommand, { TableName: tables.addresses });
    expect(claimed).toHaveLength(1);
    const updates = dynamo.commandCalls(UpdateCommand, { TableName: tables.idempotency }).map((call) => call.args[0].input);
    expect(updates).toEqual([expect.objectContaining({ UpdateExpression: 'SET lease_until = :zero' })]);
    expect(dynamo.commandCalls(UpdateCommand, { TableName: tables.idempotency, UpdateExpression: 'SET #status = :completed' })).toHaveLength(0);
  });

  it('claims nothing when the idempotency record cannot be written', async () => {
    dynamo.on(PutCommand, { TableName: tables.idempotency }).rejects(throttle());
    await expect(createEmail(request, deps())).rejects.toBeInstanceOf(Unavailable);
    expect(dynamo.commandCalls(PutCommand, { TableName: tables.addresses })).toHaveLength(0);
    expect(dynamo.commandCalls(PutCommand, { TableName: tables.emails })).toHaveLength(0);
  });

  it('completes the record only after the email is stored', async () => {
    const result = await createEmail(request, deps());
    expect(result).toMatchObject({ replayed: false, email: { address: 'unit@example.test' } });
    const order = dynamo.calls().map((call) => `${call.args[0].constructor.name}:${(call.args[0].input as { TableName: string }).TableName}`);
    expect(order).toEqual([
      `PutCommand:${tables.idempotency}`,
      `GetCommand:${tables.domains}`,
      `PutCommand:${tables.addresses}`,
      `PutCommand:${tables.emails}`,
      `UpdateCommand:${tables.idempotency}`,
    ]);
  });
});
