import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import {
  IdentitySource,
  LambdaIntegration,
  RequestAuthorizer,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { routes, type RouteDefinition } from '../lambdas/api/routes';
import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import type { Storage } from './storage';

export interface ApiProps {
  storage: Storage;
  /** The environment keys are bound to: a staging key never authenticates against production. */
  stage: string;
  /** HMAC secret of list cursors, as a deploy-time reference. */
  cursorSecret: string;
}

const apiRoot = join(__dirname, '..', 'lambdas', 'api');

/**
 * The REST API: one method and one function per row of the shared route table, behind a REQUEST
 * authorizer with result caching off (DESIGN: request flow).
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  readonly authorizerFunction: NodejsFunction;
  readonly routeFunctions: ReadonlyMap<string, NodejsFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const environment = {
      TEMPMAIL_ENV: props.stage,
      CURSOR_SECRET: props.cursorSecret,
      BLOB_BUCKET: props.storage.bucket.bucketName,
      ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), props.storage.tables[key].tableName])),
    };

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `tempmail-${props.stage}`,
      deployOptions: { stageName: props.stage },
    });

    this.authorizerFunction = this.function('Authorizer', join(apiRoot, 'authorizer.ts'), environment);
    props.storage.tables.apiKeys.grantReadData(this.authorizerFunction);
    props.storage.tables.accounts.grantReadWriteData(this.authorizerFunction);
    const authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.authorizerFunction,
      // Never the Authorization header: the gateway would answer its absence with its own 401.
      identitySources: [IdentitySource.context('requestId')],
      resultsCacheTtl: Duration.seconds(0),
    });

    const routeFunctions = new Map<string, NodejsFunction>();
    for (const route of routes) {
      const fn = this.function(route.id, join(apiRoot, 'handlers', `${route.module}.ts`), environment);
      this.grantRoute(route, fn, props.storage);
      this.resourceFor(route.path).addMethod(route.method, new LambdaIntegration(fn), { authorizer });
      routeFunctions.set(route.id, fn);
    }
    this.routeFunctions = routeFunctions;
  }

  private function(id: string, entry: string, environment: Record<string, string>): NodejsFunction {
    return new NodejsFunction(this, `${id}Function`, {
      entry,
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.seconds(10),
      environment,
      bundling: {
        minify: true,
        sourceMap: true,
        format: OutputFormat.CJS,
        // Bundle the AWS SDK at the project's pinned version rather than the runtime's.
        bundleAwsSDK: true,
        forceDockerBundling: false,
      },
    });
  }

  /** Each route reaches what it needs: every route settles the allowance on the accounts table. */
  private grantRoute(route: RouteDefinition, fn: NodejsFunction, storage: Storage): void {
    const { tables } = storage;
    tables.accounts.grantReadWriteData(fn);
    switch (route.id) {
      case 'listDomains':
        tables.domains.grantReadData(fn);
        break;
      case 'createEmail':
        tables.domains.grantReadData(fn);
        tables.emails.grantReadWriteData(fn);
        tables.addresses.grantReadWriteData(fn);
        tables.idempotency.grantReadWriteData(fn);
        break;
      case 'getEmail':
        tables.emails.grantReadData(fn);
        break;
      case 'listMessages':
        tables.emails.grantReadData(fn);
        tables.messages.grantReadData(fn);
        break;
      case 'getMessage':
      case 'getMessageSource':
      case 'getAttachment':
        tables.messages.grantReadData(fn);
        storage.bucket.grantRead(fn);
        break;
    }
  }

  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter(Boolean)
      .reduce<IResource>((resource, part) => resource.getResource(part) ?? resource.addResource(part), this.restApi.root);
  }
}
