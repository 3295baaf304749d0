import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  RequestAuthorizer,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type GatewayResponseOptions,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { apiDeclaration } from '../lambdas/api/routes';
import { functionEnvironmentNames as names } from '../lambdas/composition/function-environment';
import { authorizerFunction, furtherVariables, routeFunctions as routeDeclarations } from '../lambdas/function-manifest';
import { declaredGatewayResponse, gatewayResponseTable, type GatewayResponse } from './gateway-responses';
import { declaredCode, ServiceFunction } from './service-function';
import { originVerifyValue } from './viewer-address';
import { grantAccess } from './grant-access';
import type { Storage } from './storage';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';

export interface ApiProps {
  storage: Storage;
  /** The stage name; also the environment keys are bound to. */
  stage: string;
  environment: Record<string, string>;
  /** The HMAC secret of list cursors: readable only by the routes that sign or read cursors. */
  cursorSecret: ISecret;
  /** A regional WAF web ACL to associate with the API stage, when the deployer has one. */
  webAclArn?: string;
  /** A custom domain name for the API, with its regional ACM certificate and, optionally, the zone to alias it in. */
  customDomain?: { domainName: string; certificateArn: string; hostedZone?: { zoneId: string; zoneName: string } };
  /** The console's user pool: its authorizer gates every console route. */
  userPool: IUserPool;
  /** The OpenID Connect issuer the console functions verify tokens against. */
  issuer: string;
  /** The stage's throttle, requests a second per method and burst (default 5,000 each). */
  throttle?: { rate?: number; burst?: number };
}

/** 5,000 requests a second: the per-stack target of docs/limits.md; the account's API Gateway burst quota is 5,000. */
export const defaultApiThrottle = { rate: 5_000, burst: 5_000 };


/**
 * The REST API: one method and one function per row of the shared route table, behind a REQUEST
 * authorizer with result caching off (DESIGN: request flow). The gateway's own failures answer in
 * the contract's error shape; access logs carry no body and no query string.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  /** The stage's access log (no bodies, no query strings). */
  readonly accessLogs: LogGroup;
  readonly authorizerFunction: ServiceFunction;
  readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The console routes' functions: they learn the console's client id once it exists. */
  readonly consoleFunctions: readonly ServiceFunction[];

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const accessLogs = (this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    }));
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `tempmail-${props.stage}`,
      description: 'Receive-only temporary email API',
      // File bodies (raw sources, attachments) leave the functions base64-encoded.
      binaryMediaTypes: [...apiDeclaration.binaryMediaTypes],
      // Clients reach it directly; an edge-optimized endpoint would add a CloudFront hop nobody configured.
      endpointTypes: [EndpointType.REGIONAL],
      // The Region's one API Gateway logging role is the account's to set (docs/deploying-to-aws.md,
      // step 0): a role made here would overwrite the one every other API of the Region logs with.
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stage,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            stage: '$context.stage',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            // The client behind the console's distribution, as the key authorizer judged it
            // (lambdas/core/client-address.ts); `-` on console routes, whose authorizer is Cognito's.
            clientIp: '$context.authorizer.client_ip',
            method: '$context.httpMethod',
            resource: '$context.resourcePath',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            responseLength: '$context.responseLength',
            authorizerError: '$context.authorizer.error',
            // Who the authorizer charged, and whether the gateway answered itself (the route's
            // function never settled that unit): docs/decisions.md, charging when the route never settles.
            accountId: '$context.authorizer.account_id',
            charged: '$context.authorizer.charged',
            gatewayError: '$context.error.responseType',
          }),
        ),
        // Best-effort gateway limits above the per-key and per-account windows the service enforces
        // (docs/limits.md: the account's own API Gateway quota binds first).
        throttlingRateLimit: props.throttle?.rate ?? defaultApiThrottle.rate,
        throttlingBurstLimit: props.throttle?.burst ?? defaultApiThrottle.burst,
      },
    });
    for (const response of gatewayResponseTable) this.restApi.addGatewayResponse(response.type, gatewayResponseOptions(response));

    this.authorizerFunction = new ServiceFunction(this, 'AuthorizerFunction', {
      ...declaredCode(authorizerFunction),
      // The value the console's distribution adds: only with it is a viewer address believed.
      environment: { ...props.environment, [names.originVerify]: originVerifyValue() },
      description: 'Checks the API key, the short window and the allowance; hands its decision to the route',
    });
    grantAccess(this.authorizerFunction, authorizerFunction.access, props);
    const authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.authorizerFunction,
      // Never the Authorization header: the gateway would answer its absence with its own 401.
      identitySources: [...apiDeclaration.keyAuthorizer.identitySources],
      resultsCacheTtl: Duration.seconds(apiDeclaration.keyAuthorizer.resultTtlSeconds),
    });

    // Console routes: Cognito checks the ID token first; the function verifies it again itself.
    const consoleAuthorizer = new CognitoUserPoolsAuthorizer(this, 'ConsoleAuthorizer', {
      cognitoUserPools: [props.userPool],
      identitySource: 'method.request.header.Authorization',
      resultsCacheTtl: Duration.seconds(0),
    });

    const routeFunctions = new Map<string, ServiceFunction>();
    const consoleFunctions: ServiceFunction[] = [];
    for (const declaration of routeDeclarations) {
      if (declaration.trigger.kind !== 'route') continue;
      const { route } = declaration.trigger;
      const identity = route.auth === 'identity';
      // The client id is the console client's, made after the API: the stack adds it (`consoleFunctions`).
      const further: Record<string, string> = { [names.cursorSecretArn]: props.cursorSecret.secretArn, [names.oidcIssuer]: props.issuer };
      const fn = new ServiceFunction(this, `${route.id}Function`, {
        ...declaredCode(declaration),
        environment: {
          ...props.environment,
          ...Object.fromEntries(furtherVariables(declaration).flatMap((name) => (further[name] === undefined ? [] : [[name, further[name]]]))),
        },
        description: `${route.method} ${route.path}`,
        // A streamed file of tens of MB takes longer than a JSON answer.
        ...(route.stream ? { timeout: Duration.minutes(2) } : {}),
      });
      grantAccess(fn, declaration.access, props);
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

    if (props.webAclArn) {
      new CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.restApi.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      Validations.of(this.restApi).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason: 'No webAclArn was given; the service enforces per-key and per-account windows itself.',
      });
    }
    if (props.customDomain) this.addCustomDomain(props.customDomain);

    Validations.of(this.restApi).acknowledge(
        { id: 'AwsSolutions-APIG2', reason: 'Every route validates its own input with zod and answers in the contract error shape.' },
        { id: 'AwsSolutions-COG4', reason: '/v1 clients authenticate with API keys through the custom authorizer; console routes use Cognito.' },
        {
          id: 'AwsSolutions-APIG6',
          reason: 'Execution logging would write request data to CloudWatch; access logs without bodies are kept instead.',
        },
    );
  }

  private addCustomDomain(domain: NonNullable<ApiProps['customDomain']>): void {
    const name = this.restApi.addDomainName('CustomDomain', {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    if (domain.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'DomainZone', {
        hostedZoneId: domain.hostedZone.zoneId,
        zoneName: domain.hostedZone.zoneName,
      });
      new ARecord(this, 'DomainAlias', {
        zone,
        recordName: `${domain.domainName}.`,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(name)),
      });
    }
  }

  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter(Boolean)
      .reduce<IResource>((resource, part) => resource.getResource(part) ?? resource.addResource(part), this.restApi.root);
  }
}

/** A row of the gateway response table as API Gateway takes it (the local front answers from the same). */
function gatewayResponseOptions(response: GatewayResponse): GatewayResponseOptions {
  const declared = declaredGatewayResponse(response);
  return {
    type: ResponseType.of(response.type),
    statusCode: String(declared.statusCode),
    responseHeaders: declared.headers,
    templates: declared.templates,
  };
}
