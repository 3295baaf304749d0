import { entryMetadataKey } from '../../lib/template-metadata';
import { TemplateResolver, type Naming, type Template } from './resolve';

/** A policy document as IAM reads it, with every intrinsic resolved. */
export interface PolicyDocument {
  Version?: string;
  Statement: Record<string, unknown>[] | Record<string, unknown>;
}

/** A function's execution role, as the template gives it. */
export interface FunctionRole {
  functionLogicalId: string;
  roleLogicalId: string;
  roleArn: string;
  /** The function's physical name and ARN under the naming used. */
  functionName: string;
  /** The source entry the function is bundled from (metadata `tempmail:entry`), when the template carries it. */
  entry?: string;
  /** The function's environment, resolved. */
  environment: Record<string, string>;
  /** Inline policies and AWS::IAM::Policy / AWS::IAM::ManagedPolicy resources attached to the role. */
  policies: { name: string; document: PolicyDocument }[];
  /** Managed policy ARNs attached by reference (their documents are not in the template: not evaluated). */
  managedPolicyArns: string[];
  naming: Required<Naming>;
}

export { entryMetadataKey };

const roleRefs = (roles: unknown): string[] =>
  (Array.isArray(roles) ? roles : []).flatMap((role) => (role && typeof role === 'object' && 'Ref' in role ? [String(role.Ref)] : []));

/**
 * Every Lambda function of a synthesized template with its execution role's policies, resolved for
 * one account, Region and stack name.
 */
export function loadFunctionRoles(template: Template, naming: Naming): Map<string, FunctionRole> {
  const resolver = new TemplateResolver(template, naming);
  const fullNaming = { ...naming, partition: resolver.partition };
  const resources = Object.entries(template.Resources);
  const roles = new Map<string, FunctionRole>();
  for (const [functionLogicalId, resource] of resources) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const roleProperty = resource.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
    const roleLogicalId = roleProperty?.['Fn::GetAtt']?.[0];
    if (!roleLogicalId || !template.Resources[roleLogicalId]) {
      throw new Error(`function ${functionLogicalId} has no role of this template (${JSON.stringify(roleProperty)})`);
    }
    const role = template.Resources[roleLogicalId]!;
    const policies: FunctionRole['policies'] = [];
    for (const inline of (role.Properties?.Policies ?? []) as { PolicyName: unknown; PolicyDocument: unknown }[]) {
      policies.push({ name: resolver.resolveString(inline.PolicyName), document: resolver.resolve(inline.PolicyDocument) as PolicyDocument });
    }
    for (const [policyLogicalId, policy] of resources) {
      if (policy.Type !== 'AWS::IAM::Policy' && policy.Type !== 'AWS::IAM::ManagedPolicy') continue;
      if (!roleRefs(policy.Properties?.Roles).includes(roleLogicalId)) continue;
      policies.push({ name: policyLogicalId, document: resolver.resolve(policy.Properties!.PolicyDocument) as PolicyDocument });
    }
    const managedPolicyArns = ((role.Properties?.ManagedPolicyArns ?? []) as unknown[]).map((arn) => resolver.resolveString(arn));
    const variables = (resource.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
    const entry = resource.Metadata?.[entryMetadataKey];
    roles.set(functionLogicalId, {
      functionLogicalId,
      roleLogicalId,
      roleArn: resolver.arnOf(roleLogicalId),
      functionName: resolver.physicalName(functionLogicalId),
      ...(typeof entry === 'string' ? { entry } : {}),
      environment: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, resolver.resolveString(value)])),
      policies,
      managedPolicyArns,
      naming: fullNaming,
    });
  }
  return roles;
}
