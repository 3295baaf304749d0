import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Aws, Duration, RemovalPolicy, Stack, Token, Validations, type CfnElement } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IRestApi } from 'aws-cdk-lib/aws-apigateway';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { consoleContentSecurityPolicy } from '../console/security-headers';
import { apiReferenceContentSecurityPolicy, apiReferenceFiles, apiReferencePath, publishedDocumentCacheControl } from '../openapi/reference/api-reference';
import { frameworkLogGroup } from './service-function';
import { synthesisScratchFolder } from './synthesis-scratch';
import { originVerifyHeader, originVerifyValue, viewerAddressFunctionCode } from './viewer-address';

const consoleRoot = join(__dirname, '..', 'console');

/** `/console` and `/console/` serve the console's index, as on `npm start`; `/docs` is the API reference's page. */
const indexRewrite = `function handler(event) {
  var request = event.request;
  if (request.uri === '/console') {
    return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '/console/' } } };
  }
  if (request.uri === '${apiReferencePath}') request.uri = '${apiReferencePath}/index.html';
  if (request.uri.endsWith('/')) request.uri += 'index.html';
  return request;
}`;

export interface ConsoleHostingProps {
  restApi: IRestApi;
  /** The API stage: the API origin's path. */
  stage: string;
  /** The origins the page talks to for sign-in (the issuer's discovery and keys, its token endpoint). */
  issuerOrigins: string[];
}

/**
 * The console in AWS: its files in a private S3 bucket behind CloudFront (origin access control),
 * HTTPS only, and the API as a second origin of the same distribution, so the console calls
 * `/v1` and `/console/v1` on its own origin: no CORS allowlist to keep in step. Every console
 * file carries the same strict headers as on `npm start`.
 */
export class ConsoleHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** The console's address: the sign-in returns here. */
  readonly consoleUrl: string;
  /** The API reference's address, built from the OpenAPI document and published with the console. */
  readonly referenceUrl: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    const logs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'console-bucket/',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const headers = new ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleContentSecurityPolicy(props.issuerOrigins.join(' ')), override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: 'no-store', override: true }] },
    });
    const api = new HttpOrigin(`${props.restApi.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`, {
      originPath: `/${props.stage}`,
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      // Tells the API's web ACL that the viewer address header below was written by this distribution.
      customHeaders: { [originVerifyHeader]: originVerifyValue() },
    });
    const viewerAddress = new CloudFrontFunction(this, 'ViewerAddress', {
      code: FunctionCode.fromInline(viewerAddressFunctionCode),
      runtime: FunctionRuntime.JS_2_0,
    });
    const apiBehavior = {
      origin: api,
      functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: viewerAddress }],
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    // The API reference: files of the same bucket under a policy of their own (no script at all; a browser may keep them five minutes).
    const referenceHeaders = new ResponseHeadersPolicy(this, 'ReferenceHeaders', {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: apiReferenceContentSecurityPolicy, override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: publishedDocumentCacheControl, override: true }] },
    });
    const files = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const index = new CloudFrontFunction(this, 'Index', { code: FunctionCode.fromInline(indexRewrite), runtime: FunctionRuntime.JS_2_0 });
    const filesBehavior = {
      origin: files,
      functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: index }],
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      cachePolicy: CachePolicy.CACHING_DISABLED,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'tempmail console and API',
      httpVersion: HttpVersion.HTTP2_AND_3,
      // No standard logs: the legacy ones record every query string, and the v2 ones, which can
      // leave that field out, are configured only in us-east-1 (docs/deploying-to-aws.md). The
      // API's requests through the distribution are in the stage's access log, which has none.
      enableLogging: false,
      defaultBehavior: { ...filesBehavior, responseHeadersPolicy: headers },
      additionalBehaviors: {
        '/v1/*': apiBehavior,
        '/console/v1/*': apiBehavior,
        [`${apiReferencePath}*`]: { ...filesBehavior, responseHeadersPolicy: referenceHeaders },
      },
    });
    this.consoleUrl = `https://${this.distribution.distributionDomainName}/console/`;
    this.referenceUrl = `https://${this.distribution.distributionDomainName}${apiReferencePath}`;

    Validations.of(this).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'A customer console: no geographic restriction is wanted.' },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Legacy standard logs cannot leave query strings out; every API request through the distribution is in the API stage\'s access log, without them.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'The API behind it has the stack\'s regional web ACL, whose rate rule keys on the viewer address this distribution forwards; the files are static.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason: 'The default CloudFront certificate allows TLS 1.0 at the edge; a deployer with a domain sets TLSv1.2_2021 with its certificate. HTTPS only either way.',
      },
    );
  }

  /**
   * Publishes the console's files and its `config.json` (the issuer, the client id, where signing
   * out goes, whom to ask for more requests), and the API reference.
   */
  deploy(config: { issuer: string; clientId: string; logoutEndpoint?: string; support?: string }): BucketDeployment {
    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [Source.asset(builtSite()), Source.jsonData('console/config.json', config)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/console/*', `${apiReferencePath}*`],
      memoryLimit: 256,
      logGroup: frameworkLogGroup(this, 'DeployLogs'),
    });
    const stack = Stack.of(this);
    const copies = 'The CDK bucket-deployment function copies the console files from the asset bucket into the console bucket.';
    Validations.of(deployment.handlerRole).acknowledge(
      ...[
        'Action::s3:GetObject*',
        'Action::s3:GetBucket*',
        'Action::s3:List*',
        'Action::s3:DeleteObject*',
        'Action::s3:Abort*',
        `Resource::arn:${concrete(stack.partition, '<AWS::Partition>')}:s3:::cdk-hnb659fds-assets-${concrete(stack.account, '<AWS::AccountId>')}-${concrete(stack.region, '<AWS::Region>')}/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*`,
      ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: copies })),
      { id: 'AwsSolutions-IAM5[Resource::*]', reason: 'CloudFront invalidations name no resource; only the console paths are invalidated.' },
    );
    Validations.of(deployment.handlerRole.node.scope!).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The CDK bucket-deployment function runs on the runtime its CDK version chooses.',
    });
    return deployment;
  }
}

/** A value as cdk-nag prints it: the value itself when the stack knows it, its placeholder otherwise. */
function concrete(value: string, placeholder: string): string {
  return Token.isUnresolved(value) ? placeholder : value;
}

let site: string | undefined;

/**
 * The site's files, the same for every stack the process synthesizes (a stage's settings go in
 * its `config.json`): built once, not again for each stage or each test app.
 */
function builtSite(): string {
  return (site ??= buildSite());
}

/**
 * The files as they ship: the console (index, stylesheet and the minified bundle) under
 * `console/`, and the API reference built from the OpenAPI document under `docs/` (the document
 * itself is not published in AWS, so the page names it in the source).
 */
function buildSite(): string {
  const out = synthesisScratchFolder('tempmail-console-');
  const dir = join(out, 'console');
  mkdirSync(dir);
  buildSync({
    entryPoints: [join(consoleRoot, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    legalComments: 'none',
    outfile: join(dir, 'app.js'),
  });
  for (const file of ['index.html', 'app.css']) copyFileSync(join(consoleRoot, file), join(dir, file));
  const reference = join(out, apiReferencePath.slice(1));
  mkdirSync(reference);
  const { html, css } = apiReferenceFiles();
  writeFileSync(join(reference, 'index.html'), html);
  writeFileSync(join(reference, 'reference.css'), css);
  return out;
}
