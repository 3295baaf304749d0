import { isWildcardOnlyAction, runSimulation, type RunSimulationResults, type SimulationErrors } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './commands';
import { DecisionMemo } from './decision-memo';
import type { FunctionRole, PolicyDocument } from './roles';

export type Decision =
  | { result: 'allowed' }
  | {
      result: 'denied';
      reason: string;
      /** Where the explicit deny that decided it is; absent when no statement allows the request. */
      explicitDenyIn?: 'identity-based' | 'resource-based';
    }
  | { result: 'unmappable'; reason: string };

/** A resource's own policy (a bucket policy, a queue policy), evaluated beside the caller's. */
export interface ResourcePolicy {
  /** What the reasons name it: the template's logical id of the policy. */
  name: string;
  document: PolicyDocument;
}

/**
 * Evaluates one request of a function's execution role against its identity policies and, when
 * given, the resource's policy, with @cloud-copilot/iam-simulate in strict mode. An action or
 * resource the evaluator does not know is unmappable: a failure to the caller, never a pass. A
 * resource with a wildcard is unmappable too (a real call names one resource), except for the
 * actions IAM only authorizes on `*`.
 */
export async function evaluate(role: FunctionRole, call: IamRequest, resourcePolicy?: ResourcePolicy): Promise<Decision> {
  const managed = role.managedPolicyArns.length ? ` (managed policies not evaluated: ${role.managedPolicyArns.join(', ')})` : '';
  return judge(
    { principal: role.roleArn, account: role.naming.account, identityPolicies: role.policies, describe: `the policies of ${role.roleLogicalId}${managed}` },
    call,
    resourcePolicy,
  );
}

/**
 * Evaluates a request an AWS service makes on its own behalf (SES storing a received mail in S3):
 * a service principal has no identity policies, so only the resource's policy can allow it.
 */
export async function evaluateServiceRequest(servicePrincipal: string, account: string, call: IamRequest, resourcePolicy: ResourcePolicy | undefined): Promise<Decision> {
  return judge({ principal: servicePrincipal, account, identityPolicies: [], describe: servicePrincipal }, call, resourcePolicy);
}

interface Caller {
  principal: string;
  account: string;
  identityPolicies: FunctionRole['policies'];
  describe: string;
}

/** The decisions of `judge` and of `policyAllows`, by everything that decides them (see DecisionMemo). */
const decisions = new DecisionMemo<Decision>();
const authorizerDecisions = new DecisionMemo<boolean>();

/** A request's decision, evaluated once for the same caller, policies and request; each caller gets its own copy. */
async function judge(caller: Caller, call: IamRequest, resourcePolicy: ResourcePolicy | undefined): Promise<Decision> {
  return { ...(await decisions.decide({ caller, call, resourcePolicy }, () => judgeAfresh(caller, call, resourcePolicy))) };
}

async function judgeAfresh(caller: Caller, call: IamRequest, resourcePolicy: ResourcePolicy | undefined): Promise<Decision> {
  const [service, action] = call.action.split(':');
  const wildcardOnly = await isWildcardOnlyAction(service ?? '', action ?? '').catch(() => undefined);
  if (wildcardOnly === undefined) return { result: 'unmappable', reason: `${call.action} is not an IAM action` };
  if (call.resource === '*' ? !wildcardOnly : /[*?]/.test(call.resource)) {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: a call names one resource` };
  }
  let outcome: RunSimulationResults;
  try {
    outcome = await simulate(caller.principal, caller.identityPolicies, { ...call, accountId: caller.account }, resourcePolicy);
  } catch (error) {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: ${(error as Error).message}` };
  }
  if (outcome.resultType === 'error') {
    return { result: 'unmappable', reason: `${call.action} on ${call.resource}: ${describeErrors(outcome.errors)}` };
  }
  if (outcome.overallResult === 'Allowed') return { result: 'allowed' };
  const policies = resourcePolicy ? `${caller.describe} and the resource policy ${resourcePolicy.name}` : caller.describe;
  if (outcome.overallResult !== 'ExplicitlyDenied') return { result: 'denied', reason: `${call.action} on ${call.resource}: no statement allows it in ${policies}` };
  const analysis = outcome.resultType === 'single' ? outcome.result.analysis : undefined;
  const explicitDenyIn = analysis?.resourceAnalysis?.denyStatements.length ? 'resource-based' : 'identity-based';
  const where = explicitDenyIn === 'resource-based' ? `the resource policy ${resourcePolicy?.name}` : caller.describe;
  return { result: 'denied', reason: `${call.action} on ${call.resource}: explicitly denied in ${where}`, explicitDenyIn };
}

/**
 * Whether a policy document allows one request, as IAM evaluates it: what API Gateway does with
 * the policy a Lambda authorizer returns, against the method ARN of the request. An explicit
 * deny wins; a policy that names neither allows nothing; one the evaluator cannot read allows nothing.
 */
export async function policyAllows(document: PolicyDocument, request: { action: string; resource: string; accountId: string }): Promise<boolean> {
  return authorizerDecisions.decide({ document, request }, async () => {
    const outcome = await simulate(`arn:aws:iam::${request.accountId}:root`, [{ name: 'authorizer', document }], request).catch(() => undefined);
    return outcome?.resultType !== 'error' && outcome?.overallResult === 'Allowed';
  });
}

function simulate(
  principal: string,
  policies: { name: string; document: PolicyDocument }[],
  request: { action: string; resource: string; accountId: string; context?: IamRequest['context'] },
  resourcePolicy?: ResourcePolicy,
): Promise<RunSimulationResults> {
  return runSimulation(
    {
      request: { principal, action: request.action, resource: { resource: request.resource, accountId: request.accountId }, contextVariables: request.context ?? {} },
      identityPolicies: policies.map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy: resourcePolicy.document } : {}),
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
