/** A command line split into positional words and `--name value` / `--flag` options. */
export interface ParsedArgs {
  words: string[];
  options: Map<string, string | true>;
}

/** Options that take no value. */
const flags = new Set(['json', 'help', 'version', 'raw', 'stop-at-budget']);

/**
 * Splits argv; `--name=value` and `--name value` both work; flags take no value. `-h` is
 * `--help`, `-V` is `--version`. An option not in `known` is refused, with the closest known one.
 */
export function parseArgs(argv: string[], known: ReadonlySet<string> = new Set([...flags])): ParsedArgs {
  const words: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '-V') {
      options.set(arg === '-h' ? 'help' : 'version', true);
      continue;
    }
    if (/^-[^-]/.test(arg) && !/^-\d/.test(arg)) throw new UsageError(`unknown option ${arg}`);
    const option = /^--([^=]*)(?:=(.*))?$/s.exec(arg);
    if (!option) {
      words.push(arg);
      continue;
    }
    const [, name, inline] = option;
    if (!known.has(name!)) {
      const near = closest(name!, known);
      throw new UsageError(`unknown option --${name}${near ? ` (did you mean --${near}?)` : ''}`);
    }
    if (flags.has(name!)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      options.set(name!, true);
    } else if (inline !== undefined) options.set(name!, inline);
    else if (i + 1 < argv.length) options.set(name!, argv[++i]!);
    else throw new UsageError(`--${name} needs a value`);
  }
  return { words, options };
}

/** The known name nearest to a mistyped one (edit distance at most 3), if any. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** `60s`, `2m`, `1500ms`, `90` (seconds) as milliseconds, above 0. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new UsageError(`not a duration: ${text} (examples: 60s, 2m, 500ms)`);
  const value = Number(match[1]);
  const ms = Math.round(match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1000);
  if (ms <= 0) throw new UsageError(`a duration must be above 0: ${text}`);
  return ms;
}

/**
 * Text safe for a terminal: every control character but newline and tab (C0, DEL, C1: escape
 * sequences, OSC 52 clipboard writes, cursor moves) is removed, as are bidirectional overrides.
 */
export function printable(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** A mistake in the command line itself. */
export class UsageError extends Error {
  override name = 'UsageError';
}
