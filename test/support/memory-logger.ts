import type { Logger } from '../../lambdas/core/ports/logger';

/** A logger that keeps lines for assertions instead of printing them. */
export function memoryLogger(): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const at = (level: string) => (message: string, fields: Record<string, unknown> = {}) =>
    void lines.push({ level, message, ...fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
