import type { AwsStub } from 'aws-sdk-client-mock';
import { recordCall } from '../../local/iam/recording';

/**
 * Hands the commands an aws-sdk-client-mock stub received to the permission check, as sent by the
 * function bundled from `entry` (for handlers that only run under a mocked client in the suites).
 */
export function recordMockedCalls(entry: string, service: string, stub: AwsStub<any, any, any>): void {
  for (const call of stub.calls()) {
    const command = call.args[0] as { constructor: { name: string }; input: Record<string, unknown> };
    recordCall({ entry, service, command: command.constructor.name, input: command.input });
  }
}
