import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Records the AWS SDK commands each function sends, for the permission check (docs/permissions.md).
 * On only when `TEMPMAIL_CALL_LOG` names a directory: each process appends the distinct calls it
 * saw to its own file there. A test's local runtime, given these through its overrides
 * (test/support/call-recording.ts), runs each route, the authorizer, the recipient filter, the
 * parser's ingest and the sweeper inside `asFunction(entry, ...)`, the entry being the source file
 * its Lambda function is bundled from; the template names the same file. `npm start` loads none of it.
 */
export const callLogVariable = 'TEMPMAIL_CALL_LOG';

/** One distinct call: which function's code sent which command, with the input IAM looks at. */
export interface RecordedCall {
  /** The function's source entry, relative to the project; undefined when no function was running. */
  entry?: string;
  service: string;
  command: string;
  /** The input, reduced to what names the resource; a resource name is `${VARIABLE}`, the environment variable that carries it. */
  input: Record<string, unknown>;
}

const scope = new AsyncLocalStorage<string>();
const seen = new Set<string>();

export const recording = (): boolean => Boolean(process.env[callLogVariable]);

/** Runs `fn` as the function bundled from `entry` (when recording; otherwise `fn` itself). */
export function asFunction<A extends unknown[], R>(entry: string, fn: (...args: A) => R): (...args: A) => R {
  if (!recording()) return fn;
  return (...args) => scope.run(entry, () => fn(...args));
}

/** Appends one call to this process's log, once. */
export function recordCall(call: RecordedCall): void {
  const directory = process.env[callLogVariable];
  if (!directory) return;
  const line = JSON.stringify(call);
  if (seen.has(line)) return;
  seen.add(line);
  appendFileSync(join(directory, `calls-${process.pid}.jsonl`), `${line}\n`);
}

interface SdkClient {
  middlewareStack: { add(middleware: any, options: { step: 'initialize'; name: string }): void };
  config: { serviceId?: string };
}

/**
 * Adds the recording middleware to an SDK v3 client (a no-op unless recording). `names` maps each
 * resource name this runtime uses (a local table name) to the environment variable that carries
 * it to a function, so the check can put the deployed name in its place.
 */
export function recordCalls(client: SdkClient, names: Record<string, string>): void {
  if (!recording()) return;
  client.middlewareStack.add(
    (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { commandName?: string }) =>
      (args: { input: Record<string, unknown> }) => {
        recordCall({
          entry: scope.getStore(),
          service: client.config.serviceId ?? 'unknown',
          command: context.commandName ?? 'unknown',
          input: reduce(args.input, names),
        });
        return next(args);
      },
    { step: 'initialize', name: 'tempmailCallRecorder' },
  );
}

/** The input fields that name a resource, each local name replaced by its variable. */
const resourceFields = ['TableName', 'IndexName', 'Bucket', 'Key', 'QueueUrl', 'QueueName', 'SecretId', 'StackName', 'FunctionName', 'Qualifier', 'Source'];

function reduce(input: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const name = (value: unknown) => (typeof value === 'string' && value in names ? `\${${names[value]}}` : value);
  const reduced: Record<string, unknown> = {};
  for (const field of resourceFields) if (typeof input[field] === 'string') reduced[field] = name(input[field]);
  if (input.RequestItems && typeof input.RequestItems === 'object') {
    reduced.RequestItems = Object.fromEntries(Object.keys(input.RequestItems).map((table) => [name(table), {}]));
  }
  if (Array.isArray(input.TransactItems)) {
    reduced.TransactItems = input.TransactItems.map((entry: Record<string, { TableName?: string }>) =>
      Object.fromEntries(Object.entries(entry).map(([kind, operation]) => [kind, { TableName: name(operation.TableName) }])),
    );
  }
  return reduced;
}
