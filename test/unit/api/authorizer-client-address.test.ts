import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createAuthorizer } from '../../../lambdas/api/authorizer';
import type { ApiServices } from '../../../lambdas/composition/services';
import { originVerifyHeader, viewerAddressHeader } from '../../../lambdas/core/client-address';
import { memoryLogger } from '../../support/memory-logger';
import { TestClock } from '../../support/test-clock';

// The key authorizer names the client for the stage's access log (`clientIp`), which can print
// the authorizer's context but no request header. A request without an API key is refused before
// any storage is read, so these services need no tables.
const verify = '5d1f2a7c-0b1e-11f1-9a3e-0e8c1a2b3c4d';
const services = { env: 'test', clock: new TestClock(), logger: memoryLogger() } as unknown as ApiServices;
const edge = '130.176.1.10';
const viewer = '203.0.113.7';

function event(headers: Record<string, string[]>): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:us-east-1:123456789012:api/test/GET/v1/domains',
    resource: '/v1/domains',
    path: '/v1/domains',
    httpMethod: 'GET',
    headers: Object.fromEntries(Object.entries(headers).map(([name, values]) => [name, values.at(-1)!])),
    multiValueHeaders: headers,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: { requestId: 'r-1', identity: { sourceIp: edge } },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

async function clientOf(headers: Record<string, string[]>, stack: { verify: string | undefined } = { verify }): Promise<unknown> {
  const result = await createAuthorizer(() => services, stack.verify)(event(headers));
  return result.context?.['client_ip'];
}

describe('the key authorizer names the client in its context for the access log', () => {
  it("names the viewer when the request carries the distribution's origin-verify value", async () => {
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: [verify] })).toBe(viewer);
    expect(await clientOf({ 'X-Tempmail-Viewer-Address': ['2001:db8::7'], 'X-Tempmail-Origin-Verify': [verify] })).toBe('2001:db8::7');
  });

  it('names the connection when a caller forges the viewer header without the value', async () => {
    expect(await clientOf({ [viewerAddressHeader]: [viewer] })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: ['guess'] })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: [verify.slice(0, -1)] })).toBe(edge);
  });

  it('names the connection when the value is repeated, the viewer is not one address, or the stack gave no value', async () => {
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: ['guess', verify] })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: [viewer, '198.51.100.1'], [originVerifyHeader]: [verify] })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: ['"><script>'], [originVerifyHeader]: [verify] })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: [verify] }, { verify: undefined })).toBe(edge);
    expect(await clientOf({ [viewerAddressHeader]: [viewer], [originVerifyHeader]: [''] }, { verify: '' })).toBe(edge);
  });

  it('hands the decision over unchanged beside the address, and never the key', async () => {
    const result = await createAuthorizer(() => services, verify)(
      event({ authorization: ['Bearer tm_test_not-a-real-key'], [viewerAddressHeader]: [viewer], [originVerifyHeader]: [verify] }),
    );
    expect(result.context).toEqual({ decision: 'invalid_api_key', client_ip: viewer });
  });
});
