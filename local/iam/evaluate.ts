import { isWildcardOnlyAction, runSimulation, type RunSimulationResults, type SimulationErrors } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './commands';
import type { FunctionRole, PolicyDocument } from './roles';

export type Decision =
  | { result: 'allowed' }
  | { result: 'denied'; reason: string }
  | { result: 'unmappable'; reason: string };

/**
 * Evaluates one request against a function role's identity policies with @cloud-copilot/iam-simulate,
 * in strict mode. An action or resource the evaluator does not know is unmappable: a failure to the
 * caller, never a pass. A resource with a wildcard is unmappable too (a real call names one
 * resource), except for the actions IAM only authorizes on `*`.
 */
export async function evaluate(role: FunctionRole, call: IamRequest): Promise<Decision> {
  const [service, action] = call.action.split(':');
  const wildcardOnly = await isWildcardOnlyAction(service ?? '', action ?? '').catch(() => undefined);
  if (wildcardOnly === undefined) return { result: 'unmappable', reason: `${call.action} is not an IAM action` };
  if (call.resource === '*' ? !wildcardOnly : /[*?]/.test(call.resource)) {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: a call names one resource` };
  }
  let outcome: RunSimulationResults;
  try {
    outcome = await simulate(role.roleArn, role.policies, { ...call, accountId: role.naming.account });
  } catch (error) {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: ${(error as Error).message}` };
  }
  if (outcome.resultType === 'error') {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: ${describeErrors(outcome.errors)}` };
  }
  if (outcome.overallResult === 'Allowed') return { result: 'allowed' };
  const how = outcome.overallResult === 'ExplicitlyDenied' ? 'explicitly denied' : 'no statement allows it';
  const managed = role.managedPolicyArns.length ? ` (managed policies not evaluated: ${role.managedPolicyArns.join(', ')})` : '';
  return { result: 'denied', reason: `${call.action} on ${call.resource}: ${how} in the policies of ${role.roleLogicalId}${managed}` };
}

/**
 * Whether a policy document allows one request, as IAM evaluates it: what API Gateway does with
 * the policy a Lambda authorizer returns, against the method ARN of the request. An explicit
 * deny wins; a policy that names neither allows nothing; one the evaluator cannot read allows nothing.
 */
export async function policyAllows(document: PolicyDocument, request: { action: string; resource: string; accountId: string }): Promise<boolean> {
  const outcome = await simulate(`arn:aws:iam::${request.accountId}:root`, [{ name: 'authorizer', document }], request).catch(() => undefined);
  return outcome?.resultType !== 'error' && outcome?.overallResult === 'Allowed';
}

function simulate(
  principal: string,
  policies: { name: string; document: PolicyDocument }[],
  request: { action: string; resource: string; accountId: string; context?: IamRequest['context'] },
): Promise<RunSimulationResults> {
  return runSimulation(
    {
      request: { principal, action: request.action, resource: { resource: request.resource, accountId: request.accountId }, contextVariables: request.context ?? {} },
      identityPolicies: policies.map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    { simulationMode: 'Strict' },
  );
}

function describeErrors(errors: SimulationErrors): string {
  const details = Object.entries(errors)
    .filter(([key]) => key !== 'message')
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  return [errors.message, ...details].join('; ');
}
