import { isWildcardOnlyAction, runSimulation, type RunSimulationResults, type SimulationErrors } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './commands';
import type { FunctionRole } from './roles';

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
    outcome = await runSimulation(
      {
        request: {
          principal: role.roleArn,
          action: call.action,
          resource: { resource: call.resource, accountId: role.naming.account },
          contextVariables: call.context,
        },
        identityPolicies: role.policies.map((policy) => ({ name: policy.name, policy: policy.document })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      { simulationMode: 'Strict' },
    );
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

function describeErrors(errors: SimulationErrors): string {
  const details = Object.entries(errors)
    .filter(([key]) => key !== 'message')
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  return [errors.message, ...details].join('; ');
}
