import type { Stores } from '../lambdas/composition/services';
import type { Connection } from './connect';

/** A mistake in the command line: the CLI prints it with its usage and exits 2. */
export class UsageError extends Error {}

export interface Args {
  positionals: string[];
  values: Record<string, string | undefined>;
  environment: NodeJS.ProcessEnv;
  /** Whether the stores are the local service's (DATA_DIR), not the stack's in AWS. */
  local: boolean;
  /** What the connection knows of the service: the receipt rule's domains, the running local service. */
  connection: Pick<Connection, 'receiptRule' | 'service'>;
}

/** One operator command: what it prints, as one JSON object (or the text `--format env` asks for). */
export type Command = (stores: Stores, args: Args) => Promise<unknown>;

export function required(values: Args['values'], name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
