import type { Logger } from '../core/ports/logger';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing one JSON object a line, at or above a level. */
export function jsonLogger(level: LogLevel, write: (line: string) => void): Logger {
  const at =
    (name: 'info' | 'warn' | 'error') =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (rank[name] < rank[level]) return;
      write(JSON.stringify({ level: name, time: new Date().toISOString(), message, ...fields }));
    };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
