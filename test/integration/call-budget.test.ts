import { startTestService, type TestService } from '../support/local-service';
import { dynamoDbCalls } from '../support/dynamodb-calls';
import { json } from '../support/json';
import { sendMail } from '../support/smtp-client';

let service: TestService;
const calls = dynamoDbCalls();
let apiKey: string;
let emailId: string;
let messageId: string;

const total = (counted: Record<string, number>) => Object.values(counted).reduce((sum, count) => sum + count, 0);

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => calls.instrument(client) });
  ({ apiKey } = await service.account('paid'));
  const email = (await json(await service.createEmail(apiKey, { local_part: 'call-budget' }))).data;
  emailId = email.id;
  await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: email.address, subject: 'budget', text: 'hello' });
  const listing = await json(await service.request(`/v1/emails/${emailId}/messages`, { key: apiKey }));
  messageId = listing.data[0].id;
});
afterAll(() => service.close());

describe('the call budget of an authenticated read (DESIGN: request flow 6)', () => {
  it.each([
    ['GET /v1/emails/{id}', () => `/v1/emails/${emailId}`, { GetItemCommand: 2, UpdateItemCommand: 1 }],
    ['GET /v1/emails/{id}/messages', () => `/v1/emails/${emailId}/messages`, { GetItemCommand: 2, UpdateItemCommand: 1, QueryCommand: 1 }],
    ['GET /v1/messages/{id}', () => `/v1/messages/${messageId}`, { GetItemCommand: 2, UpdateItemCommand: 1 }],
  ])('%s makes the key lookup, one allowance write and the resource reads: at most 4 calls', async (_route, path, expected) => {
    calls.take();
    const response = await service.request(path(), { key: apiKey });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const counted = calls.take();
    expect(counted).toEqual(expected);
    expect(total(counted)).toBeLessThanOrEqual(4);
  });
});
