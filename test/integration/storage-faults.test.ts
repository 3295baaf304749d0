import { idempotencyRecordKey } from '../../lambdas/core/idempotency';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { storageFaults } from '../support/storage-faults';

let service: TestService;
const faults = storageFaults();

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => faults.instrument(client) });
});
afterAll(() => service.close());
afterEach(() => expect(faults.pending()).toBe(0));

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect((await json(response)).error.code).toBe('service_unavailable');
}

describe('storage failures', () => {
  it('answers a failed email write with 503, uncharged, and the retry keeps the planned address', async () => {
    const { accountId, apiKey } = await service.account('free');
    faults.fail({ command: 'PutItemCommand', table: '-emails', times: 1 });
    await expectUnavailable(await service.createEmail(apiKey, {}, 'fault-email-put-0001'));
    expect(await service.remaining(accountId)).toBe(100);

    const retry = await service.createEmail(apiKey, {}, 'fault-email-put-0001');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('false');
    const email = (await json(retry)).data;
    const record = await service.runtime.services.idempotency.get(
      idempotencyRecordKey(accountId, 'createEmail', 'fault-email-put-0001'),
    );
    expect(record).toMatchObject({ status: 'completed', emailId: email.id, address: email.address });
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('answers a failed address claim with 503 and leaves the address free for the retry', async () => {
    const { apiKey } = await service.account('free');
    faults.fail({ command: 'PutItemCommand', table: '-addresses', times: 1 });
    await expectUnavailable(await service.createEmail(apiKey, { local_part: 'claim-fault' }, 'fault-claim-key-0001'));
    const retry = await service.createEmail(apiKey, { local_part: 'claim-fault' }, 'fault-claim-key-0001');
    expect(retry.status).toBe(201);
    expect((await json(retry)).data.address).toBe('claim-fault@tempmail.localhost');
  });

  it('resumes after a crash that left the key leased: 503 while the lease holds, then the same email', async () => {
    const { apiKey } = await service.account('paid');
    // The email write fails and so does the lease release: as if the function died mid-create.
    faults.fail({ command: 'PutItemCommand', table: '-emails', times: 1 });
    faults.fail({ command: 'UpdateItemCommand', table: '-idempotency', times: 1 });
    await expectUnavailable(await service.createEmail(apiKey, { local_part: 'crashed' }, 'fault-crash-key-0001'));

    await expectUnavailable(await service.createEmail(apiKey, { local_part: 'crashed' }, 'fault-crash-key-0001'));
    service.clock.advance(15_000);
    const resumed = await service.createEmail(apiKey, { local_part: 'crashed' }, 'fault-crash-key-0001');
    expect(resumed.status).toBe(201);
    expect((await json(resumed)).data.address).toBe('crashed@tempmail.localhost');
    const again = await service.createEmail(apiKey, { local_part: 'crashed' }, 'fault-crash-key-0001');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  }, 20_000);

  it('answers a failed allowance write in the authorizer with 503, charging nothing', async () => {
    const { accountId, apiKey } = await service.account('free');
    faults.fail({ command: 'UpdateItemCommand', table: '-accounts', times: 1 });
    await expectUnavailable(await service.request('/v1/domains', { key: apiKey }));
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('answers a failed read with 503 and refunds the reserved unit', async () => {
    const { accountId, apiKey } = await service.account('free');
    const email = (await json(await service.createEmail(apiKey, {}))).data;
    faults.fail({ command: 'GetItemCommand', table: '-emails', times: 1 });
    await expectUnavailable(await service.request(`/v1/emails/${email.id}`, { key: apiKey }));
    expect(await service.remaining(accountId)).toBe(99);
    expect((await service.request(`/v1/emails/${email.id}`, { key: apiKey })).status).toBe(200);
  });
});
