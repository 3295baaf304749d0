import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The part of `npm run start:stack` that reads the synthesized template: the stack's functions,
 * their roles' policies, tables, API methods and receipt rules, with every intrinsic function
 * resolved against the local resources. Nothing else in the runner reads CloudFormation.
 */

export const localAccount = '000000000000';
export const localRegion = 'us-east-1';

type Json = unknown;
export interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
  DependsOn?: Json;
}
export interface Template {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, { Default?: Json }>;
}

export interface PolicyDocument {
  Version?: string;
  Statement: unknown[];
}

export interface StackFunction {
  logicalId: string;
  /** Its physical name in this local stack: the logical id. */
  name: string;
  arn: string;
  assetDir: string;
  /** `index.handler` splits into the file and its export. */
  file: string;
  exportName: string;
  environment: Record<string, string>;
  memoryMb: number;
  timeoutSeconds: number;
  roleArn: string;
  /** The identity policies of its execution role, resolved. */
  policies: PolicyDocument[];
}

/** Reads the stack's template and where its assets are. */
export function readStack(cdkOut: string): { template: Template; cdkOut: string } {
  const manifest = JSON.parse(readFileSync(join(cdkOut, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stack = Object.values(manifest.artifacts).find((artifact) => artifact.type === 'aws:cloudformation:stack');
  if (!stack?.properties?.templateFile) throw new Error(`no stack template in ${cdkOut}`);
  return { template: JSON.parse(readFileSync(join(cdkOut, stack.properties.templateFile), 'utf8')) as Template, cdkOut };
}

export function resourcesOfType(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** How the local stack names and addresses each resource that a template can refer to. */
export interface LocalBindings {
  /** Overrides for a resource's Ref (e.g. a user pool's issuer); otherwise the defaults below. */
  refs?: Record<string, string>;
}

/** Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split, Fn::Sub and the pseudo parameters. */
export function resolver(template: Template, bindings: LocalBindings = {}) {
  const ref = (name: string): string => {
    if (bindings.refs?.[name] !== undefined) return bindings.refs[name];
    switch (name) {
      case 'AWS::Region':
        return localRegion;
      case 'AWS::AccountId':
        return localAccount;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return 'tempmail-local';
      case 'AWS::NoValue':
        return '';
    }
    const parameter = template.Parameters?.[name];
    if (parameter) return String(parameter.Default ?? '');
    const resource = template.Resources[name];
    if (!resource) throw new Error(`unresolvable Ref ${name}`);
    return physicalRef(name, resource);
  };
  const getAtt = (name: string, attribute: string): string => {
    const resource = template.Resources[name];
    if (!resource) throw new Error(`unresolvable Fn::GetAtt ${name}.${attribute}`);
    if (attribute === 'Arn') return arnOf(name, resource);
    if (attribute === 'QueueName') return name;
    if (attribute === 'ProviderURL') return bindings.refs?.[`${name}.ProviderURL`] ?? `https://cognito-idp.${localRegion}.amazonaws.com/${name}`;
    if (attribute === 'StreamArn') return `${arnOf(name, resource)}/stream/local`;
    return `${name}.${attribute}`;
  };
  const resolve = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, Json>);
    if (entries.length === 1) {
      const [key, argument] = entries[0];
      switch (key) {
        case 'Ref':
          return ref(argument as string);
        case 'Fn::GetAtt': {
          const [name, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
          return getAtt(name as string, attribute as string);
        }
        case 'Fn::Join': {
          const [separator, parts] = argument as [string, Json[]];
          return (resolve(parts) as Json[]).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = argument as [number, Json];
          return (resolve(list) as Json[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = argument as [string, Json];
          return String(resolve(text)).split(separator);
        }
        case 'Fn::Sub': {
          const [text, variables] = Array.isArray(argument) ? (argument as [string, Record<string, Json>]) : [argument as string, {}];
          return text.replace(/\$\{([^}]+)\}/g, (_all, name: string) => {
            if (name in variables) return String(resolve(variables[name]));
            const [resource, attribute] = name.split('.');
            return attribute ? getAtt(resource, attribute) : ref(resource);
          });
        }
      }
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, resolve(inner)]));
  };
  return resolve;
}

/** The name a Ref gives: a table, queue, bucket or function is named by its logical id locally. */
function physicalRef(name: string, resource: Resource): string {
  switch (resource.Type) {
    case 'AWS::SQS::Queue':
      return `http://sqs.${localRegion}.localhost/${localAccount}/${name}`;
    case 'AWS::SecretsManager::Secret':
    case 'AWS::IAM::Role':
    case 'AWS::Lambda::Function':
    case 'AWS::DynamoDB::Table':
    case 'AWS::S3::Bucket':
    default:
      return resource.Type === 'AWS::SecretsManager::Secret' ? arnOf(name, resource) : localName(name);
  }
}

/** Local physical names: lower case, as a bucket must be. */
export function localName(logicalId: string): string {
  return logicalId.toLowerCase();
}

export function arnOf(name: string, resource: Resource): string {
  const local = localName(name);
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table':
    case 'AWS::DynamoDB::GlobalTable':
      return `arn:aws:dynamodb:${localRegion}:${localAccount}:table/${local}`;
    case 'AWS::S3::Bucket':
      return `arn:aws:s3:::${local}`;
    case 'AWS::SQS::Queue':
      return `arn:aws:sqs:${localRegion}:${localAccount}:${name}`;
    case 'AWS::SecretsManager::Secret':
      return `arn:aws:secretsmanager:${localRegion}:${localAccount}:secret:${name}-local`;
    case 'AWS::Lambda::Function':
      return `arn:aws:lambda:${localRegion}:${localAccount}:function:${local}`;
    case 'AWS::IAM::Role':
      return `arn:aws:iam::${localAccount}:role/${local}`;
    default:
      return `arn:aws:local:${localRegion}:${localAccount}:${name}`;
  }
}

/** Every Lambda function of the stack, with its asset, handler, environment, limits and role policies. */
export function stackFunctions(template: Template, cdkOut: string, bindings: LocalBindings = {}): StackFunction[] {
  const resolve = resolver(template, bindings);
  const policiesOfRole = new Map<string, PolicyDocument[]>();
  for (const [, policy] of resourcesOfType(template, 'AWS::IAM::Policy')) {
    for (const role of (policy.Properties?.Roles ?? []) as { Ref: string }[]) {
      const list = policiesOfRole.get(role.Ref) ?? [];
      list.push(resolve(policy.Properties?.PolicyDocument) as PolicyDocument);
      policiesOfRole.set(role.Ref, list);
    }
  }
  return resourcesOfType(template, 'AWS::Lambda::Function').map(([logicalId, resource]) => {
    const properties = resource.Properties ?? {};
    const code = properties.Code as { S3Key?: string; ZipFile?: string };
    if (!code.S3Key) throw new Error(`function ${logicalId} has no bundled asset`);
    const roleId = (properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = template.Resources[roleId];
    const inline = ((role.Properties?.Policies ?? []) as { PolicyDocument: Json }[]).map((policy) => resolve(policy.PolicyDocument) as PolicyDocument);
    const [file, exportName] = String(properties.Handler).split(/\.(?=[^.]+$)/);
    return {
      logicalId,
      name: localName(logicalId),
      arn: arnOf(logicalId, resource),
      assetDir: join(cdkOut, `asset.${code.S3Key.replace(/\.zip$/, '')}`),
      file,
      exportName,
      environment: resolve((properties.Environment as { Variables?: Json } | undefined)?.Variables ?? {}) as Record<string, string>,
      memoryMb: Number(properties.MemorySize ?? 128),
      timeoutSeconds: Number(properties.Timeout ?? 3),
      roleArn: arnOf(roleId, role),
      policies: [...inline, ...(policiesOfRole.get(roleId) ?? [])],
    };
  });
}

/** The logical id of the function an ARN-bearing value names (`Fn::GetAtt [Fn, Arn]` somewhere inside). */
function functionOf(value: Json): string | undefined {
  const text = JSON.stringify(value);
  return /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(text)?.[1] ?? /"Ref":"([^"]+)"/.exec(text)?.[1];
}

export interface ApiMethod {
  httpMethod: string;
  /** The resource path, from the chain of `AWS::ApiGateway::Resource` path parts. */
  path: string;
  authorization: string;
  functionId: string;
  streamed: boolean;
}

/** The REST API's methods and the function each integrates with. */
export function apiMethods(template: Template): ApiMethod[] {
  const pathOf = (id: string | undefined): string => {
    const resource = id ? template.Resources[id] : undefined;
    if (!resource || resource.Type !== 'AWS::ApiGateway::Resource') return '';
    const parent = resource.Properties?.ParentId as { Ref?: string };
    return `${pathOf(parent.Ref)}/${String(resource.Properties?.PathPart)}`;
  };
  return resourcesOfType(template, 'AWS::ApiGateway::Method').flatMap(([, method]) => {
    const properties = method.Properties ?? {};
    const integration = properties.Integration as { Type?: string; Uri?: Json; ResponseTransferMode?: string } | undefined;
    const functionId = integration?.Type === 'AWS_PROXY' ? functionOf(integration.Uri) : undefined;
    if (!functionId) return [];
    return [
      {
        httpMethod: String(properties.HttpMethod),
        path: pathOf((properties.ResourceId as { Ref?: string }).Ref) || '/',
        authorization: String(properties.AuthorizationType ?? 'NONE'),
        functionId,
        streamed: integration?.ResponseTransferMode === 'STREAM',
      },
    ];
  });
}

/** The function of the REQUEST authorizer. */
export function requestAuthorizerFunction(template: Template): string | undefined {
  const [, authorizer] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer').find(([, resource]) => resource.Properties?.Type === 'REQUEST') ?? [];
  return authorizer ? functionOf(authorizer.Properties?.AuthorizerUri) : undefined;
}

export type ReceiptAction =
  | { kind: 'lambda'; functionId: string; invocationType: 'RequestResponse' | 'Event' }
  | { kind: 's3'; bucketId: string; prefix: string }
  | { kind: 'unsupported'; type: string };

export interface ReceiptRule {
  name: string;
  recipients: string[];
  scanEnabled: boolean;
  actions: ReceiptAction[];
}

/** The active rule set's receipt rules, in order (each names the rule it follows with `After`). */
export function receiptRules(template: Template): ReceiptRule[] {
  const rules = resourcesOfType(template, 'AWS::SES::ReceiptRule').map(([, resource]) => {
    const rule = resource.Properties?.Rule as Record<string, Json>;
    const actions = ((rule.Actions ?? []) as Record<string, Record<string, Json>>[]).map((action): ReceiptAction => {
      if (action.LambdaAction) {
        return {
          kind: 'lambda',
          functionId: functionOf(action.LambdaAction.FunctionArn)!,
          invocationType: action.LambdaAction.InvocationType === 'RequestResponse' ? 'RequestResponse' : 'Event',
        };
      }
      if (action.S3Action) return { kind: 's3', bucketId: functionOf(action.S3Action.BucketName)!, prefix: String(action.S3Action.ObjectKeyPrefix ?? '') };
      return { kind: 'unsupported', type: Object.keys(action)[0] };
    });
    return {
      after: resource.Properties?.After as string | undefined,
      rule: {
        name: String(rule.Name),
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
    const period = Number(rate[1]) * (rate[2].startsWith('hour') ? 3600 : 60);
    return ((rule.Properties?.Targets ?? []) as { Arn: Json }[]).map((target) => ({ functionId: functionOf(target.Arn)!, periodSeconds: period }));
  });
}

/** Each table's CreateTable input, under its local name. */
export function tableInputs(template: Template): Record<string, unknown>[] {
  return [...resourcesOfType(template, 'AWS::DynamoDB::GlobalTable'), ...resourcesOfType(template, 'AWS::DynamoDB::Table')].map(([logicalId, table]) => {
    const properties = table.Properties ?? {};
    const indexes = properties.GlobalSecondaryIndexes as Record<string, Json>[] | undefined;
    return {
      TableName: localName(logicalId),
      AttributeDefinitions: properties.AttributeDefinitions,
      KeySchema: properties.KeySchema,
      BillingMode: 'PAY_PER_REQUEST',
      ...(indexes?.length
        ? { GlobalSecondaryIndexes: indexes.map((index) => ({ IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection })) }
        : {}),
    };
  });
}
