import {
  CreateReceiptRuleSetCommand,
  DescribeActiveReceiptRuleSetCommand,
  SESClient,
  SetActiveReceiptRuleSetCommand,
} from '@aws-sdk/client-ses';

/** The rule set the stacks of this service share in a Region when none is active yet. */
export const sharedRuleSetName = 'tempmail-shared';

interface ProviderEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

/**
 * The custom resource that gives each stage's receipt rule a rule set to live in (DESIGN:
 * inbound mail): SES has one active rule set per Region and account, so every stage adds its own
 * rule to that one set. When a set is active, it is adopted as it is; only when none is, the
 * shared set is created (if absent) and made active. On delete nothing happens: the stack's rule
 * is removed by CloudFormation, and no set, ours or another's, is ever deactivated or deleted.
 */
export function createSharedRuleSetHandler(ses: SESClient) {
  return async (event: ProviderEvent) => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const active = await ses.send(new DescribeActiveReceiptRuleSetCommand({}));
    const activeName = active.Metadata?.Name;
    if (activeName) return { PhysicalResourceId: activeName, Data: { RuleSetName: activeName } };
    try {
      await ses.send(new CreateReceiptRuleSetCommand({ RuleSetName: sharedRuleSetName }));
    } catch (error) {
      // Another stage's deployment may have created it a moment ago.
      if ((error as Error).name !== 'AlreadyExistsException') throw error;
    }
    await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: sharedRuleSetName }));
    return { PhysicalResourceId: sharedRuleSetName, Data: { RuleSetName: sharedRuleSetName } };
  };
}

export const handler = createSharedRuleSetHandler(new SESClient({}));
