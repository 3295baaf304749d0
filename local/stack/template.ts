import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localTableNames, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { loadFunctionRoles, TemplateResolver, UnresolvableError, type FunctionRole, type PolicyDocument, type ResourcePolicy, type Template } from '../iam';

/**
 * The part of `npm run start:stack` that reads the synthesized template: the stack's functions
 * (asset, handler, limits, asynchronous invocation and role), its tables, queues, resource
 * policies, receipt rules and schedules (the API is read in gateway-template.ts). Names and ARNs
 * are resolved by the IAM module's resolver, so that what a function calls and what its policies
 * name agree. Nothing else in the runner reads CloudFormation.
 */

type Json = unknown;
export type { Template };

/** The local deployment's account, Region and stack name. */
export const localNaming = { account: '000000000000', region: 'us-east-1', stackName: 'tempmail-local' };

export interface StackFunction {
  logicalId: string;
  name: string;
  arn: string;
  assetDir: string;
  /** `index.handler` splits into the file and its export. */
  file: string;
  exportName: string;
  environment: Record<string, string>;
  memoryMb: number;
  timeoutSeconds: number;
  role: FunctionRole;
  /** How Lambda handles its Event invocations (`AWS::Lambda::EventInvokeConfig`, else Lambda's defaults). */
  asynchronous: { maximumRetryAttempts: number; maximumEventAgeSeconds: number; deadLetterTargetArn?: string };
}

/**
 * Names the template's tables as `npm start` names its own (`tempmail-accounts`, ...), by the
 * environment variable each function reads it from, so that the operator CLI works on the same
 * `DATA_DIR` with either runner.
 */
export function nameTablesLocally(template: Template): void {
  const names = localTableNames();
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables = (resource.Properties?.Environment?.Variables ?? {}) as Record<string, { Ref?: string }>;
    for (const key of tableKeys) {
      const table = variables[tableEnvironmentName(key)]?.Ref;
      const properties = table ? template.Resources[table]?.Properties : undefined;
      if (properties) properties.TableName = names[key];
    }
  }
}

/** Reads the stack's template from a cloud assembly. */
export function readStack(cdkOut: string): Template {
  const manifest = JSON.parse(readFileSync(join(cdkOut, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stack = Object.values(manifest.artifacts).find((artifact) => artifact.type === 'aws:cloudformation:stack');
  if (!stack?.properties?.templateFile) throw new Error(`no stack template in ${cdkOut}`);
  return JSON.parse(readFileSync(join(cdkOut, stack.properties.templateFile), 'utf8')) as Template;
}

export function resourcesOfType(template: Template, type: string) {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

export function localResolver(template: Template): TemplateResolver {
  return new TemplateResolver(template, localNaming);
}

/** The functions with these logical ids, from their bundled assets, with their roles. */
export function stackFunctions(template: Template, cdkOut: string, logicalIds: Iterable<string>): StackFunction[] {
  const roles = loadFunctionRoles(template, localNaming);
  const resolver = localResolver(template);
  const invokeConfigs = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').map(([, config]) => config.Properties ?? {});
  return [...new Set(logicalIds)].map((logicalId) => {
    const properties = template.Resources[logicalId]?.Properties ?? {};
    const role = roles.get(logicalId);
    const code = properties.Code as { S3Key?: string } | undefined;
    if (!role || !code?.S3Key) throw new Error(`function ${logicalId} has no bundled asset in the template`);
    const [file = 'index', exportName = 'handler'] = String(properties.Handler).split(/\.(?=[^.]+$)/);
    const invokeConfig = invokeConfigs.find((config) => functionOf(config.FunctionName) === logicalId && config.Qualifier === '$LATEST');
    const deadLetterTarget = (properties.DeadLetterConfig as { TargetArn?: Json } | undefined)?.TargetArn;
    return {
      logicalId,
      name: role.functionName,
      arn: resolver.arnOf(logicalId),
      assetDir: assetDir(cdkOut, code.S3Key),
      file,
      exportName,
      environment: role.environment,
      memoryMb: Number(properties.MemorySize ?? 128),
      timeoutSeconds: Number(properties.Timeout ?? 3),
      role,
      // Lambda's defaults: two retries, events kept six hours.
      asynchronous: {
        maximumRetryAttempts: Number(invokeConfig?.MaximumRetryAttempts ?? 2),
        maximumEventAgeSeconds: Number(invokeConfig?.MaximumEventAgeInSeconds ?? 21_600),
        ...(deadLetterTarget ? { deadLetterTargetArn: resolver.resolveString(deadLetterTarget) } : {}),
      },
    };
  });
}

/** Where the assembly keeps the asset the template names by its object key (`<hash>.zip`): unzipped, as `asset.<hash>`. */
function assetDir(cdkOut: string, objectKey: string): string {
  return join(cdkOut, `asset.${objectKey.replace(/\.zip$/, '')}`);
}

/**
 * The support contact the template publishes in the console's `config.json`: the file is one of
 * the console deployment's sources (`Custom::CDKBucketDeployment`), an asset of the assembly; its
 * other fields are markers for the user pool's values, which the local issuer stands in for.
 * Undefined when the stack was synthesized without one.
 */
export function publishedSupportContact(template: Template, cdkOut: string): string | undefined {
  const sources = resourcesOfType(template, 'Custom::CDKBucketDeployment').flatMap(([, deployment]) => (deployment.Properties?.SourceObjectKeys ?? []) as Json[]);
  const configs = sources.flatMap((key) => {
    const file = join(assetDir(cdkOut, String(key)), 'console', 'config.json');
    return existsSync(file) ? [JSON.parse(readFileSync(file, 'utf8')) as { support?: unknown }] : [];
  });
  if (configs.length !== 1) throw new Error(`the template publishes ${configs.length} console config.json files, not one`);
  const support = configs[0]!.support;
  return typeof support === 'string' ? support : undefined;
}

export interface StackQueue {
  logicalId: string;
  name: string;
  arn: string;
  /** The attributes the template sets, as `CreateQueue` takes them. */
  attributes: Record<string, string>;
}

/** The template's SQS queues. */
export function stackQueues(template: Template): StackQueue[] {
  const resolver = localResolver(template);
  return resourcesOfType(template, 'AWS::SQS::Queue').map(([logicalId, queue]) => {
    const properties = queue.Properties ?? {};
    const attributes = ['DelaySeconds', 'MaximumMessageSize', 'MessageRetentionPeriod', 'ReceiveMessageWaitTimeSeconds', 'VisibilityTimeout'].flatMap((name) =>
      properties[name] === undefined ? [] : [[name, String(resolver.resolve(properties[name]))] as const],
    );
    return { logicalId, name: resolver.physicalName(logicalId), arn: resolver.arnOf(logicalId), attributes: Object.fromEntries(attributes) };
  });
}

/**
 * The template's bucket and queue policies, by the ARN of the resource each governs: a bucket's
 * covers the bucket and its objects. Lookups take a request's resource ARN. A policy this runner
 * cannot resolve (the console bucket's names the CloudFront distribution, which does not run
 * here) fails the lookup of its resource, never passes for an empty one.
 */
export function resourcePolicies(template: Template): (resourceArn: string) => ResourcePolicy | undefined {
  const resolver = localResolver(template);
  const byArn = new Map<string, ResourcePolicy | { unresolvable: string }>();
  const add = (arn: string, name: string, document: Json) => {
    let resolved: PolicyDocument;
    try {
      resolved = resolver.resolve(document) as PolicyDocument;
    } catch (error) {
      if (!(error instanceof UnresolvableError)) throw error;
      return void byArn.set(arn, { unresolvable: `the policy ${name} of ${arn} cannot be resolved here: ${error.message}` });
    }
    const existing = byArn.get(arn);
    if (existing && 'unresolvable' in existing) return;
    // Several policies on one resource are one policy to IAM: their statements together.
    const statements = (policy: PolicyDocument) => ([] as Record<string, unknown>[]).concat(policy.Statement);
    byArn.set(arn, existing ? { name: `${existing.name}+${name}`, document: { ...existing.document, Statement: [...statements(existing.document), ...statements(resolved)] } } : { name, document: resolved });
  };
  for (const [logicalId, policy] of resourcesOfType(template, 'AWS::S3::BucketPolicy')) {
    add(`arn:${resolver.partition}:s3:::${resolver.resolveString(policy.Properties?.Bucket)}`, logicalId, policy.Properties?.PolicyDocument);
  }
  for (const [logicalId, policy] of resourcesOfType(template, 'AWS::SQS::QueuePolicy')) {
    for (const queue of (policy.Properties?.Queues ?? []) as Json[]) {
      const name = resolver.resolveString(queue).split('/').at(-1);
      add(`arn:${resolver.partition}:sqs:${localNaming.region}:${localNaming.account}:${name}`, logicalId, policy.Properties?.PolicyDocument);
    }
  }
  return (resourceArn) => {
    // An object's policy is its bucket's.
    const policy = byArn.get(resourceArn) ?? (resourceArn.includes(':s3:::') ? byArn.get(resourceArn.split('/')[0]!) : undefined);
    if (policy && 'unresolvable' in policy) throw new Error(policy.unresolvable);
    return policy;
  };
}

/** The logical id of the function an ARN-bearing value names (`Fn::GetAtt [Fn, Arn]` somewhere inside). */
export function functionOf(value: Json): string | undefined {
  const text = JSON.stringify(value);
  return /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(text)?.[1] ?? /"Ref":"([^"]+)"/.exec(text)?.[1];
}

export type ReceiptAction =
  | { kind: 'lambda'; functionId: string; invocationType: 'RequestResponse' | 'Event' }
  | { kind: 's3'; bucketArn: string; prefix: string }
  | { kind: 'stop' }
  | { kind: 'unsupported'; type: string };

export interface ReceiptRule {
  name: string;
  /** The rule's ARN, as SES names it to the services it calls (`aws:SourceArn`). */
  arn: string;
  recipients: string[];
  scanEnabled: boolean;
  actions: ReceiptAction[];
}

/** The active rule set's receipt rules, in order (each names the rule it follows with `After`). */
export function receiptRules(template: Template): ReceiptRule[] {
  const resolver = localResolver(template);
  const rules = resourcesOfType(template, 'AWS::SES::ReceiptRule').map(([, resource]) => {
    const rule = resource.Properties?.Rule as Record<string, Json>;
    // The Region's active rule set is found at deployment (a custom resource): locally it is `local`.
    let ruleSet = 'local';
    try {
      ruleSet = resolver.resolveString(resource.Properties?.RuleSetName);
    } catch (error) {
      if (!(error instanceof UnresolvableError)) throw error;
    }
    const actions = ((rule.Actions ?? []) as Record<string, Record<string, Json>>[]).map((action): ReceiptAction => {
      if (action.LambdaAction) {
        return {
          kind: 'lambda',
          functionId: functionOf(action.LambdaAction.FunctionArn)!,
          invocationType: action.LambdaAction.InvocationType === 'RequestResponse' ? 'RequestResponse' : 'Event',
        };
      }
      if (action.S3Action) return { kind: 's3', bucketArn: `arn:${resolver.partition}:s3:::${resolver.resolveString(action.S3Action.BucketName)}`, prefix: String(action.S3Action.ObjectKeyPrefix ?? '') };
      if (action.StopAction?.Scope === 'RuleSet') return { kind: 'stop' };
      return { kind: 'unsupported', type: Object.keys(action)[0] ?? '' };
    });
    return {
      after: resource.Properties?.After as string | undefined,
      rule: {
        name: String(rule.Name),
        arn: `arn:${resolver.partition}:ses:${localNaming.region}:${localNaming.account}:receipt-rule-set/${ruleSet}:receipt-rule/${String(rule.Name)}`,
        recipients: ((rule.Recipients ?? []) as string[]).map((recipient) => recipient.toLowerCase()),
        scanEnabled: rule.ScanEnabled === true,
        actions,
        enabled: rule.Enabled !== false,
      },
    };
  });
  const ordered: ReceiptRule[] = [];
  let previous: string | undefined;
  while (ordered.length < rules.length) {
    const next = rules.find((entry) => entry.after === previous && !ordered.includes(entry.rule)) ?? rules.find((entry) => !ordered.includes(entry.rule))!;
    ordered.push(next.rule);
    previous = next.rule.name;
  }
  return ordered.filter((rule) => (rule as ReceiptRule & { enabled: boolean }).enabled);
}

/** The scheduled rules' targets: the function and its period in seconds. */
export function schedules(template: Template): { functionId: string; periodSeconds: number }[] {
  return resourcesOfType(template, 'AWS::Events::Rule').flatMap(([, rule]) => {
    const rate = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(String(rule.Properties?.ScheduleExpression ?? ''));
    if (!rate || rule.Properties?.State === 'DISABLED') return [];
    const period = Number(rate[1]) * (rate[2]!.startsWith('hour') ? 3600 : 60);
    return ((rule.Properties?.Targets ?? []) as { Arn: Json }[]).map((target) => ({ functionId: functionOf(target.Arn)!, periodSeconds: period }));
  });
}

/** Each table's CreateTable input, under its local name. */
export function tableInputs(template: Template): Record<string, unknown>[] {
  const resolver = localResolver(template);
  return [...resourcesOfType(template, 'AWS::DynamoDB::GlobalTable'), ...resourcesOfType(template, 'AWS::DynamoDB::Table')].map(([logicalId, table]) => {
    const properties = table.Properties ?? {};
    const indexes = properties.GlobalSecondaryIndexes as Record<string, Json>[] | undefined;
    return {
      TableName: resolver.physicalName(logicalId),
      AttributeDefinitions: properties.AttributeDefinitions,
      KeySchema: properties.KeySchema,
      BillingMode: 'PAY_PER_REQUEST',
      ...(indexes?.length
        ? { GlobalSecondaryIndexes: indexes.map((index) => ({ IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection })) }
        : {}),
    };
  });
}
