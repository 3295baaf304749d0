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

/**
 * What a command takes on its command line (beside `--stack` and `--help`, which every command
 * takes). The CLI checks it before it opens the data directory or asks AWS for the stack, so a
 * mistyped command touches nothing and says so at once.
 */
export interface CommandLine {
  /** Options that must be given. */
  required?: readonly string[];
  /** Options that may be given. */
  optional?: readonly string[];
  /** Two options of which exactly one is given. */
  oneOf?: readonly [string, string];
  /** The values an option may have. */
  choices?: Readonly<Record<string, readonly [string, string, ...string[]]>>;
  /** Whether it takes one NAME after the command. */
  name?: boolean;
}

/** One operator command: what it takes, and what it prints as one JSON object (or the text `--format env` asks for). */
export interface Command {
  line: CommandLine;
  run: (stores: Stores, args: Args) => Promise<unknown>;
}

/** Throws a UsageError naming the first thing of `values` and `positionals` that `line` does not allow. */
export function checkCommandLine(command: string, line: CommandLine, values: Args['values'], positionals: readonly string[]): void {
  const takes = new Set([...(line.required ?? []), ...(line.optional ?? []), ...(line.oneOf ?? [])]);
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !takes.has(option)) throw new UsageError(`${command} takes no --${option}`);
  }
  for (const option of line.required ?? []) {
    if (!values[option]) throw new UsageError(`--${option} is required`);
  }
  if (line.oneOf) {
    const given = line.oneOf.filter((option) => values[option]);
    const either = line.oneOf.map((option) => `--${option}`).join(' or ');
    if (given.length === 0) throw new UsageError(`give ${either}`);
    if (given.length > 1) throw new UsageError(`give ${either}, not both`);
  }
  for (const [option, allowed] of Object.entries(line.choices ?? {})) {
    const value = values[option];
    if (value !== undefined && !allowed.includes(value)) {
      throw new UsageError(`--${option} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
    }
  }
  const names = line.name ? 1 : 0;
  if (positionals.length < names) throw new UsageError(`${command} needs a NAME`);
  if (positionals.length > names) throw new UsageError(`${command} takes ${names ? 'one NAME' : 'no NAME'}, not '${positionals.slice(names).join(' ')}'`);
}
