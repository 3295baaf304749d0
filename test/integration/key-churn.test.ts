import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbAccountStore } from '../../lambdas/adapters/dynamodb/dynamodb-account-store';
import { DynamoDbApiKeyStore } from '../../lambdas/adapters/dynamodb/dynamodb-api-key-store';
import { localTableNames } from '../../lambdas/adapters/dynamodb/table-definitions';
import { issueApiKey, revokeApiKey } from '../../lambdas/core/api-keys';
import { authorize } from '../../lambdas/core/authorize';
import { shortWindowAt } from '../../lambdas/core/short-window';
import { ensureTables, startLocalDynamoDb, type LocalDynamoDb } from '../../local/local-dynamodb';
import { TestClock } from '../support/test-clock';
import { accountFixture } from '../support/port-stubs';

// Issue: an account item that grew by one attribute per key ever used failed for good at 400 KB.
let dynamodb: LocalDynamoDb;
beforeAll(async () => {
  dynamodb = await startLocalDynamoDb();
});
afterAll(async () => {
  await dynamodb.close();
});

it('an account that created, used and revoked 1,000 keys still works, and its record stays bounded', async () => {
  const names = localTableNames('churn');
  await ensureTables(dynamodb.endpoint, names);
  // Through the storage thread's channel, as the local runtime reaches it: a loopback HTTP round
  // trip per call cost more processor time than dynalite's own work.
  const client = createDocumentClient({ endpoint: dynamodb.endpoint, requestHandler: dynamodb.requestHandler });
  const accounts = new DynamoDbAccountStore(client, names.accounts);
  const keys = new DynamoDbApiKeyStore(client, names.apiKeys);
  const clock = new TestClock();
  const deps = { accounts, keys, ledger: accounts, clock, env: 'local' };
  await accounts.create(accountFixture({ accountId: 'acc_churn', allowance: { base: 100, additional: 0, remaining: 100 } }));
  const itemSize = async () => {
    const { Item } = await client.send(new GetCommand({ TableName: names.accounts, Key: { account_id: 'acc_churn' } }));
    return Buffer.byteLength(JSON.stringify(Item));
  };

  // Each key passes admission (which records its last use on the account's record) and is
  // revoked (which forgets it): the account store's part of a key's life, without the key table.
  let next = 0;
  const churn = async () => {
    const keyId = `key_${String(next++).padStart(6, '0')}`;
    const reserved = await accounts.reserve('acc_churn', {
      keyId,
      charge: false,
      window: shortWindowAt(clock.now()),
      at: clock.now().toISOString(),
    });
    expect(reserved.outcome).toBe('reserved');
    await accounts.forgetKey('acc_churn', keyId);
  };
  // 1,000 keys (4,000 writes, a few seconds through the channel) show the record's size is flat
  // after the first 100; the size is independent of how many keys came and went.
  const rounds = 10;
  const sizes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // 100 keys a round, 25 at a time; a new minute each round keeps the short window open.
    for (let batch = 0; batch < 4; batch++) await Promise.all(Array.from({ length: 25 }, churn));
    clock.advance(60_000);
    if (round === 0 || round === rounds - 1) sizes.push(await itemSize());
  }

  const { apiKey } = await issueApiKey('acc_churn', deps);
  const decision = await authorize({ authorization: [`Bearer ${apiKey}`], query: {} }, { charge: true }, deps);
  expect(decision).toMatchObject({ decision: 'allow', accountId: 'acc_churn' });
  await revokeApiKey(apiKey, deps);
  // 1,000 keys later the record is no larger than after 100, and holds no last use of a revoked key.
  expect(sizes[1]).toBeLessThanOrEqual(sizes[0]!);
  expect(Object.keys((await accounts.get('acc_churn'))!.keyLastUsed ?? {})).toEqual([]);
}, 120_000);
