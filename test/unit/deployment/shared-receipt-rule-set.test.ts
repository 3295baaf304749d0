import {
  CreateReceiptRuleSetCommand,
  DescribeActiveReceiptRuleSetCommand,
  SESClient,
  SetActiveReceiptRuleSetCommand,
} from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { createSharedRuleSetHandler, sharedRuleSetName } from '../../../lambdas/deployment/shared-receipt-rule-set';
import { recordMockedCalls } from '../../support/recorded-mock-calls';

const ses = mockClient(SESClient);
const handler = createSharedRuleSetHandler(new SESClient({ region: 'us-east-1' }));
const sent = () => ses.calls().map((call) => call.args[0].constructor.name);

beforeEach(() => ses.reset());
// What the function sends is judged against its role by the permission check.
afterEach(() => recordMockedCalls('lambdas/deployment/shared-receipt-rule-set.ts', 'SES', ses));

describe('the rule set every stage of a Region shares', () => {
  it('adopts the active rule set, whoever owns it, and changes nothing', async () => {
    ses.on(DescribeActiveReceiptRuleSetCommand).resolves({ Metadata: { Name: 'corporate-inbound' } });
    await expect(handler({ RequestType: 'Create' })).resolves.toEqual({
      PhysicalResourceId: 'corporate-inbound',
      Data: { RuleSetName: 'corporate-inbound' },
    });
    expect(sent()).toEqual(['DescribeActiveReceiptRuleSetCommand']);
  });

  it('creates and activates the shared set only when no set is active', async () => {
    ses.on(DescribeActiveReceiptRuleSetCommand).resolves({});
    await expect(handler({ RequestType: 'Create' })).resolves.toEqual({
      PhysicalResourceId: sharedRuleSetName,
      Data: { RuleSetName: sharedRuleSetName },
    });
    expect(sent()).toEqual(['DescribeActiveReceiptRuleSetCommand', 'CreateReceiptRuleSetCommand', 'SetActiveReceiptRuleSetCommand']);
    expect(ses.commandCalls(SetActiveReceiptRuleSetCommand)[0]!.args[0].input).toEqual({ RuleSetName: sharedRuleSetName });
  });

  it("activates the shared set that another stage's deployment created a moment earlier", async () => {
    ses.on(DescribeActiveReceiptRuleSetCommand).resolves({});
    ses.on(CreateReceiptRuleSetCommand).rejects(Object.assign(new Error('exists'), { name: 'AlreadyExistsException' }));
    await expect(handler({ RequestType: 'Update', PhysicalResourceId: sharedRuleSetName })).resolves.toMatchObject({
      PhysicalResourceId: sharedRuleSetName,
    });
    expect(ses.commandCalls(SetActiveReceiptRuleSetCommand)).toHaveLength(1);
  });

  it('fails the deployment on any other SES error', async () => {
    ses.on(DescribeActiveReceiptRuleSetCommand).resolves({});
    ses.on(CreateReceiptRuleSetCommand).rejects(Object.assign(new Error('limit'), { name: 'LimitExceededException' }));
    await expect(handler({ RequestType: 'Create' })).rejects.toThrow('limit');
    expect(ses.commandCalls(SetActiveReceiptRuleSetCommand)).toHaveLength(0);
  });

  it('deactivates and deletes nothing when a stack is deleted', async () => {
    await expect(handler({ RequestType: 'Delete', PhysicalResourceId: sharedRuleSetName })).resolves.toEqual({
      PhysicalResourceId: sharedRuleSetName,
    });
    expect(sent()).toEqual([]);
  });
});
