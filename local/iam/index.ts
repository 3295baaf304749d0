/**
 * IAM evaluation of the synthesized stack, for tests and the local stack runner (development only:
 * @cloud-copilot/iam-simulate is AGPL-3.0 and never reaches a Lambda bundle).
 *
 *   loadFunctionRoles(template, naming)   → Map<function logical id, FunctionRole>
 *   callFromCommand(serviceId, command, input, env) → the IAM requests an SDK v3 command makes, or unmappable
 *   evaluate(role, request, resourcePolicy?) → allowed | denied (with reason) | unmappable
 *   evaluateServiceRequest(principal, …)  → the same for a service acting on its own (SES writing to S3)
 */
export { callFromCommand, type CallEnvironment, type IamRequest, type MappedCommand } from './commands';
export { evaluate, evaluateServiceRequest, policyAllows, type Decision, type ResourcePolicy } from './evaluate';
export { entryMetadataKey, loadFunctionRoles, type FunctionRole, type PolicyDocument } from './roles';
export { TemplateResolver, UnresolvableError, secretSuffix, stackUuid, type Naming, type Template } from './resolve';
export { checkPermissions, type PermissionReport } from './check';
