import type { Logger } from '../core/ports/logger';

/**
 * The levels `LOG_LEVEL` may name, quietest last, each one the logger writes: the logger and
 * `npm start`'s configuration read this list, and the functions' environment schema accepts the
 * same (test/unit/adapters/json-logger.test.ts holds both to it).
 */
export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export type LogLevel = (typeof logLevels)[number];

type LineLevel = Exclude<LogLevel, 'silent'>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * A logger writing one JSON object a line, at or above a level.
 *
 * @example jsonLogger('info', (line) => process.stdout.write(`${line}\n`)).warn('sweep behind', { pending: 3 });
 */
export function jsonLogger(level: LogLevel, write: (line: string) => void): Logger {
  const at =
    (name: LineLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (rank[name] < rank[level]) return;
      write(JSON.stringify({ level: name, time: new Date().toISOString(), message, ...fields }));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
