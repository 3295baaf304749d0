import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

/**
 * A deployed stack's outputs as the environment variables they stand for: each output the operator
 * CLI uses carries the variable's name as its description (`ACCOUNTS_TABLE`, `BLOB_BUCKET`,
 * `DEAD_LETTER_QUEUE_URL`, `TEMPMAIL_ENV`…), so `--stack NAME` and the variables are one interface.
 */
export async function stackEnvironment(stackName: string, client: Pick<CloudFormationClient, 'send'> = new CloudFormationClient({})) {
  const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = Stacks?.[0];
  if (!stack) throw new Error(`No stack named ${stackName}`);
  const environment: Record<string, string> = {};
  for (const output of stack.Outputs ?? []) {
    if (output.Description && /^[A-Z][A-Z0-9_]*$/.test(output.Description) && output.OutputValue) {
      environment[output.Description] = output.OutputValue;
    }
  }
  return environment;
}
