/**
 * IAM evaluation of the synthesized stack, for tests and the local stack runner (development only:
 * @cloud-copilot/iam-simulate is AGPL-3.0 and never reaches a Lambda bundle).
 *
 *   loadFunctionRoles(template, naming)   → Map<function logical id, FunctionRole>
 *   callFromCommand(serviceId, command, input, env) → the IAM requests an SDK v3 command makes, or unmappable
 *   evaluate(role, request)               → allowed | denied (with reason) | unmappable
 */
export { callFromCommand, type CallEnvironment, type IamRequest, type MappedCommand } from './commands';
export { evaluate, policyAllows, type Decision } from './evaluate';
export { entryMetadataKey, loadFunctionRoles, type FunctionRole, type PolicyDocument } from './roles';
export { TemplateResolver, UnresolvableError, secretSuffix, stackUuid, type Naming, type Template } from './resolve';
export { checkPermissions, type PermissionReport } from './check';
export { asFunction, callLogVariable, recordCall, recordCalls, type RecordedCall } from './recording';
