/**
 * Resolves the intrinsic functions of a synthesized CloudFormation template to the concrete names
 * and ARNs a deployment would give its resources, for one account, Region and stack name. Only the
 * shapes IAM policies and function environments use are resolved (Ref, Fn::GetAtt, Fn::Join,
 * Fn::Sub, Fn::Select, Fn::Split); anything else is an error, never a guess.
 */

export interface Naming {
  account: string;
  region: string;
  stackName: string;
  partition?: string;
}

export type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, any>; Metadata?: Record<string, any> }>;
  Parameters?: Record<string, { Default?: unknown }>;
};

/** The stack id CloudFormation would assign; fixed, so that a mapped call and a resolved policy agree. */
export const stackUuid = '00000000-0000-4000-8000-000000000000';
/** Secrets Manager appends six random characters to a secret's ARN; fixed here for the same reason. */
export const secretSuffix = 'AbCdEf';

export class UnresolvableError extends Error {}

const explicitNameProperty: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::SES::ReceiptRuleSet': 'RuleSetName',
};

export class TemplateResolver {
  readonly partition: string;

  constructor(
    readonly template: Template,
    readonly naming: Naming,
  ) {
    this.partition = naming.partition ?? 'aws';
  }

  /** The physical name: the one the template sets, or one CloudFormation-like `<stack>-<logical id>`. */
  physicalName(logicalId: string): string {
    const resource = this.resourceOf(logicalId);
    const property = explicitNameProperty[resource.Type];
    const explicit = property ? resource.Properties?.[property] : undefined;
    if (explicit !== undefined) return this.resolveString(explicit);
    const generated = `${this.naming.stackName}-${logicalId}`;
    return resource.Type === 'AWS::S3::Bucket' ? generated.toLowerCase() : generated;
  }

  /** The ARN of a resource, built as the service builds it. */
  arnOf(logicalId: string): string {
    const { account, region } = this.naming;
    const p = this.partition;
    const resource = this.resourceOf(logicalId);
    const name = () => this.physicalName(logicalId);
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        return `arn:${p}:dynamodb:${region}:${account}:table/${name()}`;
      case 'AWS::S3::Bucket':
        return `arn:${p}:s3:::${name()}`;
      case 'AWS::SQS::Queue':
        return `arn:${p}:sqs:${region}:${account}:${name()}`;
      case 'AWS::SNS::Topic':
        return `arn:${p}:sns:${region}:${account}:${name()}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:${p}:secretsmanager:${region}:${account}:secret:${name()}-${secretSuffix}`;
      case 'AWS::Lambda::Function':
        return `arn:${p}:lambda:${region}:${account}:function:${name()}`;
      case 'AWS::IAM::Role':
        return `arn:${p}:iam::${account}:role/${name()}`;
      case 'AWS::Cognito::UserPool':
        return `arn:${p}:cognito-idp:${region}:${account}:userpool/${region}_${logicalId.slice(0, 9)}`;
      default:
        throw new UnresolvableError(`no ARN known for ${logicalId} (${resource.Type})`);
    }
  }

  /** What `Ref` returns for a resource of this type. */
  refOf(name: string): string {
    const pseudo = this.pseudo(name);
    if (pseudo !== undefined) return pseudo;
    const parameter = this.template.Parameters?.[name];
    if (parameter) {
      if (typeof parameter.Default !== 'string') throw new UnresolvableError(`parameter ${name} has no default`);
      return parameter.Default;
    }
    const resource = this.resourceOf(name);
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${this.naming.region}.amazonaws.com/${this.naming.account}/${this.physicalName(name)}`;
      case 'AWS::SecretsManager::Secret':
      case 'AWS::SNS::Topic':
        return this.arnOf(name);
      case 'AWS::Cognito::UserPool':
        return `${this.naming.region}_${name.slice(0, 9)}`;
      case 'AWS::Cognito::UserPoolClient':
        return `client${name.slice(0, 20).toLowerCase()}`;
      default:
        if (resource.Type in explicitNameProperty) return this.physicalName(name);
        throw new UnresolvableError(`no Ref value known for ${name} (${resource.Type})`);
    }
  }

  getAtt(logicalId: string, attribute: string): string {
    const resource = this.resourceOf(logicalId);
    if (attribute === 'Arn') return this.arnOf(logicalId);
    if (resource.Type === 'AWS::SQS::Queue' && attribute === 'QueueName') return this.physicalName(logicalId);
    if (resource.Type === 'AWS::SQS::Queue' && attribute === 'QueueUrl') return this.refOf(logicalId);
    if (resource.Type === 'AWS::S3::Bucket' && attribute === 'DomainName') return `${this.physicalName(logicalId)}.s3.amazonaws.com`;
    if (resource.Type === 'AWS::S3::Bucket' && attribute === 'RegionalDomainName')
      return `${this.physicalName(logicalId)}.s3.${this.naming.region}.amazonaws.com`;
    // ProviderURL is the issuer its ID tokens carry in `iss`; ProviderName the same without the scheme.
    if (resource.Type === 'AWS::Cognito::UserPool' && attribute === 'ProviderURL')
      return `https://cognito-idp.${this.naming.region}.amazonaws.com/${this.refOf(logicalId)}`;
    if (resource.Type === 'AWS::Cognito::UserPool' && attribute === 'ProviderName')
      return `cognito-idp.${this.naming.region}.amazonaws.com/${this.refOf(logicalId)}`;
    if (resource.Type === 'AWS::Cognito::UserPool' && attribute === 'UserPoolId') return this.refOf(logicalId);
    throw new UnresolvableError(`no value known for ${logicalId}.${attribute} (${resource.Type})`);
  }

  /** Resolves a value of any shape; an intrinsic this resolver does not know throws. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [key, argument] = entries[0]!;
      if (key === 'Ref') return this.refOf(String(argument));
      if (key === 'Fn::GetAtt') {
        const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split(/\.(.*)/);
        return this.getAtt(String(logicalId), String(attribute));
      }
      if (key === 'Fn::Join') {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      if (key === 'Fn::Select') {
        const [index, list] = argument as [unknown, unknown];
        const items = this.resolve(list) as unknown[];
        return items[Number(this.resolve(index))];
      }
      if (key === 'Fn::Split') {
        const [separator, source] = argument as [string, unknown];
        return this.resolveString(source).split(separator);
      }
      if (key === 'Fn::Sub') return this.sub(argument);
      if (key.startsWith('Fn::') || key === 'Condition') throw new UnresolvableError(`${key} is not resolved`);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  resolveString(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new UnresolvableError(`expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private sub(argument: unknown): string {
    const [text, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, Record<string, unknown>]);
    return text.replace(/\$\{([^}!][^}]*)\}/g, (_match, name: string) => {
      if (name in variables) return this.resolveString(variables[name]);
      const [logicalId, attribute] = name.split(/\.(.*)/);
      return attribute ? this.getAtt(logicalId!, attribute) : this.refOf(logicalId!);
    });
  }

  private pseudo(name: string): string | undefined {
    const { account, region, stackName } = this.naming;
    const pseudo: Record<string, string> = {
      'AWS::AccountId': account,
      'AWS::Region': region,
      'AWS::Partition': this.partition,
      'AWS::StackName': stackName,
      'AWS::StackId': `arn:${this.partition}:cloudformation:${region}:${account}:stack/${stackName}/${stackUuid}`,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[name];
  }

  private resourceOf(logicalId: string) {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new UnresolvableError(`no resource ${logicalId} in the template`);
    return resource;
  }
}
