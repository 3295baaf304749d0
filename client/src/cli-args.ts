/** A command line split into positional words and `--name value` / `--flag` options. */
export interface ParsedArgs {
  words: string[];
  options: Map<string, string | true>;
}

const flags = new Set(['json', 'help']);

/** Splits argv; `--name=value` and `--name value` both work; `--json` and `--help` take no value. */
export function parseArgs(argv: string[]): ParsedArgs {
  const words: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    const option = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(arg);
    if (!option) {
      words.push(arg);
      continue;
    }
    const [, name, inline] = option;
    if (inline !== undefined) options.set(name!, inline);
    else if (flags.has(name!)) options.set(name!, true);
    else if (i + 1 < argv.length) options.set(name!, argv[++i]!);
    else throw new UsageError(`--${name} needs a value`);
  }
  return { words, options };
}

/** `60s`, `2m`, `1500ms`, `90` (seconds) as milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new UsageError(`not a duration: ${text} (examples: 60s, 2m, 500ms)`);
  const value = Number(match[1]);
  return Math.round(match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1000);
}

/** A mistake in the command line itself. */
export class UsageError extends Error {
  override name = 'UsageError';
}
