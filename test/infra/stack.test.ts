import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { routes } from '../../lambdas/api/routes';
import { tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { TempmailStack } from '../../lib/tempmail-stack';

let template: Template;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
  template = Template.fromStack(new TempmailStack(app, 'Test', { stage: 'test' }));
}, 120_000);

describe('the stack', () => {
  it('makes one API method per row of the route table, each behind the custom authorizer', () => {
    const methods = template.findResources('AWS::ApiGateway::Method');
    const routed = Object.values(methods).filter((method) => method.Properties.HttpMethod !== 'OPTIONS');
    expect(routed).toHaveLength(routes.length);
    for (const method of routed) expect(method.Properties.AuthorizationType).toBe('CUSTOM');
    for (const route of routes) {
      const last = route.path.split('/').pop();
      template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: last });
    }
  });

  it('runs a REQUEST authorizer with result caching off and an identity source other than Authorization', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: 'context.requestId',
    });
  });

  it('runs every function on Node.js 22, arm64, bound to the stage', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { TEMPMAIL_ENV: 'test' } } },
    });
    expect(Object.keys(functions)).toHaveLength(routes.length + 1);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });

  it('creates every shared table definition on demand with point-in-time recovery, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', tableKeys.length);
    template.allResourcesProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      Replicas: Match.arrayWith([Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })]),
    });
    for (const resource of Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))) {
      expect(resource.DeletionPolicy).toBe('Retain');
    }
  });

  it('outputs what the operator CLI needs', () => {
    template.hasOutput('ApiUrl', {});
    for (const key of tableKeys) {
      template.hasOutput(tableEnvironmentName(key).replace(/_/g, ''), { Description: tableEnvironmentName(key) });
    }
  });
});
