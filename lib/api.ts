import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  CognitoUserPoolsAuthorizer,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  RequestAuthorizer,
  ResponseTransferMode,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routes, type RouteDefinition } from '../lambdas/api/routes';
import { sesRawPrefix } from '../lambdas/inbound/ses-events';
import { gatewayResponses } from './gateway-responses';
import { ServiceFunction } from './service-function';
import type { Storage } from './storage';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';

export interface ApiProps {
  storage: Storage;
  /** The stage name; also the environment keys are bound to. */
  stage: string;
  environment: Record<string, string>;
  /** The console's user pool: its authorizer gates every console route. */
  userPool: IUserPool;
  /** The OpenID Connect issuer the console functions verify tokens against. */
  issuer: string;
}

const apiRoot = join(__dirname, '..', 'lambdas', 'api');

/**
 * The REST API: one method and one function per row of the shared route table, behind a REQUEST
 * authorizer with result caching off (DESIGN: request flow). The gateway's own failures answer in
 * the contract's error shape; access logs carry no body and no query string.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  readonly authorizerFunction: ServiceFunction;
  readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The console routes' functions: they learn the console's client id once it exists. */
  readonly consoleFunctions: readonly ServiceFunction[];

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `tempmail-${props.stage}`,
      description: 'Receive-only temporary email API',
      // File bodies (raw sources, attachments) leave the functions base64-encoded.
      binaryMediaTypes: ['*/*'],
      cloudWatchRole: true,
      deployOptions: {
        stageName: props.stage,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            method: '$context.httpMethod',
            resource: '$context.resourcePath',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            responseLength: '$context.responseLength',
            authorizerError: '$context.authorizer.error',
          }),
        ),
        // Best-effort gateway limits above the per-key and per-account windows the service enforces.
        throttlingRateLimit: 200,
        throttlingBurstLimit: 400,
      },
    });
    for (const response of gatewayResponses) this.restApi.addGatewayResponse(response.type.responseType, response);

    this.authorizerFunction = new ServiceFunction(this, 'AuthorizerFunction', {
      entry: join(apiRoot, 'authorizer.ts'),
      environment: props.environment,
      description: 'Checks the API key, the short window and the allowance; hands its decision to the route',
    });
    props.storage.tables.apiKeys.grantReadData(this.authorizerFunction);
    props.storage.acknowledgeIndexAccess(this.authorizerFunction, 'apiKeys');
    props.storage.tables.accounts.grantReadWriteData(this.authorizerFunction);
    const authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.authorizerFunction,
      // Never the Authorization header: the gateway would answer its absence with its own 401.
      identitySources: [IdentitySource.context('requestId')],
      resultsCacheTtl: Duration.seconds(0),
    });

    // Console routes: Cognito checks the ID token first; the function verifies it again itself.
    const consoleAuthorizer = new CognitoUserPoolsAuthorizer(this, 'ConsoleAuthorizer', {
      cognitoUserPools: [props.userPool],
      identitySource: 'method.request.header.Authorization',
      resultsCacheTtl: Duration.seconds(0),
    });

    const routeFunctions = new Map<string, ServiceFunction>();
    const consoleFunctions: ServiceFunction[] = [];
    for (const route of routes as readonly RouteDefinition[]) {
      const identity = route.auth === 'identity';
      const fn = new ServiceFunction(this, `${route.id}Function`, {
        entry: join(apiRoot, 'handlers', `${route.module}.ts`),
        environment: identity ? { ...props.environment, OIDC_ISSUER: props.issuer } : props.environment,
        description: `${route.method} ${route.path}`,
        // A streamed file of tens of MB takes longer than a JSON answer.
        ...(route.stream ? { timeout: Duration.minutes(2) } : {}),
      });
      grantRoute(route, fn, props.storage);
      const integration = new LambdaIntegration(fn, {
        // File bodies stream: a buffered Lambda proxy response is capped near 6 MB.
        ...(route.stream ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.minutes(2) } : {}),
      });
      this.resourceFor(route.path).addMethod(route.method, integration, { authorizer: identity ? consoleAuthorizer : authorizer });
      routeFunctions.set(route.id, fn);
      if (identity) consoleFunctions.push(fn);
    }
    this.routeFunctions = routeFunctions;
    this.consoleFunctions = consoleFunctions;

    Validations.of(this.restApi).acknowledge(
        { id: 'AwsSolutions-APIG2', reason: 'Every route validates its own input with zod and answers in the contract error shape.' },
        { id: 'AwsSolutions-APIG3', reason: 'WAF is the deployer\'s choice; the service enforces per-key and per-account windows itself.' },
        { id: 'AwsSolutions-APIG4', reason: 'Every /v1 method has the custom REQUEST authorizer; the finding misreads it.' },
        { id: 'AwsSolutions-COG4', reason: '/v1 clients authenticate with API keys through the custom authorizer; console routes use Cognito.' },
        {
          id: 'AwsSolutions-APIG6',
          reason: 'Execution logging would write request data to CloudWatch; access logs without bodies are kept instead.',
        },
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
          reason: 'The account-level API Gateway role only pushes logs to CloudWatch.',
        },
    );
  }

  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter(Boolean)
      .reduce<IResource>((resource, part) => resource.getResource(part) ?? resource.addResource(part), this.restApi.root);
  }
}

/** Each route reaches what it needs and no more; every route settles the allowance. */
function grantRoute(route: RouteDefinition, fn: ServiceFunction, storage: Storage): void {
  const { tables } = storage;
  tables.accounts.grantReadWriteData(fn);
  switch (route.id) {
    case 'listDomains':
      tables.domains.grantReadData(fn);
      break;
    case 'createEmail':
      tables.domains.grantReadData(fn);
      tables.emails.grantReadWriteData(fn);
      storage.acknowledgeIndexAccess(fn, 'emails');
      tables.addresses.grantReadWriteData(fn);
      tables.idempotency.grantReadWriteData(fn);
      break;
    case 'getEmail':
      tables.emails.grantReadData(fn);
      storage.acknowledgeIndexAccess(fn, 'emails');
      break;
    case 'consoleGetAccount':
      tables.identities.grantReadWriteData(fn);
      break;
    case 'consoleListKeys':
    case 'consoleCreateKey':
    case 'consoleRevokeKey':
      tables.identities.grantReadWriteData(fn);
      tables.apiKeys.grantReadWriteData(fn);
      storage.acknowledgeIndexAccess(fn, 'apiKeys');
      break;
    case 'consoleListEmails':
      tables.identities.grantReadWriteData(fn);
      tables.emails.grantReadData(fn);
      storage.acknowledgeIndexAccess(fn, 'emails');
      break;
    case 'listMessages':
      tables.emails.grantReadData(fn);
      storage.acknowledgeIndexAccess(fn, 'emails');
      tables.messages.grantReadData(fn);
      storage.acknowledgeIndexAccess(fn, 'messages');
      break;
    case 'getMessage':
    case 'getMessageSource':
    case 'getAttachment':
      tables.messages.grantReadData(fn);
      storage.acknowledgeIndexAccess(fn, 'messages');
      storage.grantBlobs(fn, { read: ['mail/', sesRawPrefix] });
      break;
  }
}
