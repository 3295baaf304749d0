import { routes } from '../../../../lambdas/api/routes';
import type { Template } from '../../../../local/iam';
import { apiDisagreements } from '../../../../local/stack/api-agreement';
import { apiAuthorizers, apiMethods } from '../../../../local/stack/template';
import { synthesizeTemplate } from '../../../support/synthesized-template';

/** What `npm run start:stack` compares before it serves: the template's API against the front's. */
let synthesized: string;
beforeAll(() => {
  synthesized = JSON.stringify(synthesizeTemplate());
}, 180_000);

const disagreements = (edit: (template: Template) => void = () => undefined) => {
  const template = JSON.parse(synthesized) as Template;
  edit(template);
  return apiDisagreements(apiMethods(template), apiAuthorizers(template), routes);
};
const resourcesOf = (template: Template, type: string) => Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
/** The method of a route, found through the function its integration names. */
const methodOf = (template: Template, functionPrefix: string) =>
  resourcesOf(template, 'AWS::ApiGateway::Method').find(([, method]) => JSON.stringify(method.Properties?.Integration?.Uri).includes(`"${functionPrefix}`))!;

describe('the template’s API against the one the local front serves', () => {
  it('agree for the stack as synthesized: every route a method, as authorized and streamed as declared', () => {
    expect(disagreements()).toEqual([]);
  });

  it('names a route whose method is gone, and a method no route serves', () => {
    expect(
      disagreements((template) => {
        const [id, method] = methodOf(template, 'ApicreateEmailFunction');
        delete template.Resources[id];
        template.Resources.Extra = { ...method, Properties: { ...method.Properties, HttpMethod: 'PUT' } };
      }),
    ).toEqual(['POST /v1/emails: in the route table, but the template has no such method', 'PUT /v1/emails: a method of the template that no route of the table serves']);
  });

  it('names another authorization or transfer mode', () => {
    const problems = disagreements((template) => {
      methodOf(template, 'ApiconsoleListKeysFunction')[1].Properties!.AuthorizationType = 'CUSTOM';
      delete methodOf(template, 'ApigetMessageSourceFunction')[1].Properties!.Integration.ResponseTransferMode;
    });
    expect(problems).toEqual([
      expect.stringMatching(/^GET \/v1\/messages\/\{message_id\}\/source: the template buffers its response/),
      'GET /console/v1/keys: the template authorizes it with CUSTOM, the front with COGNITO_USER_POOLS',
    ]);
  });

  it('names an authorizer whose result is cached or read from another identity source', () => {
    const problems = disagreements((template) => {
      for (const [, authorizer] of resourcesOf(template, 'AWS::ApiGateway::Authorizer')) {
        if (authorizer.Properties!.Type === 'REQUEST') delete authorizer.Properties!.AuthorizerResultTtlInSeconds;
        else authorizer.Properties!.IdentitySource = 'method.request.header.X-Token';
      }
    });
    expect(problems).toEqual([
      expect.stringContaining('the REQUEST authorizer declares identity source context.requestId cached 300 s'),
      expect.stringContaining('the COGNITO_USER_POOLS authorizer declares identity source method.request.header.X-Token cached 0 s'),
    ]);
  });
});
