import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Api } from '../../lib/api';
import { gatewayResponseTable } from '../../lib/gateway-responses';
import { Storage } from '../../lib/storage';
import { testApp } from '../support/test-app';

let responses: Map<string, Record<string, any>>;

beforeAll(() => {
  // Only the gateway responses are read here: no function needs bundling.
  const app = testApp();
  const stack = new Stack(app, 'GatewayResponses');
  new Api(stack, 'Api', {
    storage: new Storage(stack, 'Storage'),
    stage: 'test',
    environment: {},
    cursorSecret: new Secret(stack, 'CursorSecret'),
    userPool: new UserPool(stack, 'UserPool'),
    issuer: 'https://issuer.example.test',
  });
  const template = Template.fromStack(stack);
  responses = new Map(
    Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((resource) => [
      resource.Properties.ResponseType as string,
      resource.Properties as Record<string, any>,
    ]),
  );
}, 120_000);

describe("the deployed gateway's own answers, built from the one gateway response table", () => {
  it('has exactly one gateway response per row of the table', () => {
    expect([...responses.keys()].sort()).toEqual(gatewayResponseTable.map((row) => row.type).sort());
  });

  it.each(gatewayResponseTable.map((row) => [row.type, row] as const))('%s answers as its row says', (type, row) => {
    const response = responses.get(type)!;
    expect(response.StatusCode).toBe(String(row.status));
    expect(response.ResponseParameters).toEqual({
      'gatewayresponse.header.Content-Type': "'application/json'",
      'gatewayresponse.header.Cache-Control': "'private, no-store'",
      ...Object.fromEntries(Object.entries(row.headers ?? {}).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`])),
    });
    expect(JSON.parse(response.ResponseTemplates['application/json'])).toEqual({
      error: { code: row.code, message: row.message, request_id: 'req_$context.requestId', ...(row.reason ? { details: [{ reason: row.reason }] } : {}) },
    });
  });

  it("names the limit of the gateway's own 429, as every 429 of the service does", () => {
    const throttled = JSON.parse(responses.get('THROTTLED')!.ResponseTemplates['application/json']);
    expect(throttled.error).toMatchObject({ code: 'rate_limit_exceeded', details: [{ reason: 'gateway_throttle' }] });
    for (const response of responses.values()) {
      if (response.StatusCode !== '429') continue;
      expect(JSON.parse(response.ResponseTemplates['application/json']).error.details).toEqual([{ reason: 'gateway_throttle' }]);
    }
  });

  it('sets no X-Request-Id header: a gateway response cannot compose one per request', () => {
    for (const response of responses.values()) {
      expect(Object.keys(response.ResponseParameters).map((name) => name.toLowerCase())).not.toContain(
        'gatewayresponse.header.x-request-id',
      );
    }
  });
});
