import { jsonLogger, logLevels, type LogLevel } from '../../../lambdas/adapters/json-logger';
import { readFunctionEnvironment } from '../../../lambdas/composition/function-environment';
import { readLocalConfig } from '../../../local/config';

/** Every line a logger at `level` writes when each of its methods is called once. */
function linesAt(level: LogLevel): string[] {
  const lines: string[] = [];
  const logger = jsonLogger(level, (line) => lines.push(line));
  logger.debug('looked', { messageId: 'msg_1' });
  logger.info('read');
  logger.warn('slow');
  logger.error('failed');
  return lines.map((line) => (JSON.parse(line) as { level: string }).level);
}

describe('the JSON logger', () => {
  it('writes every level at LOG_LEVEL=debug, debug lines included', () => {
    expect(linesAt('debug')).toEqual(['debug', 'info', 'warn', 'error']);
  });

  it('writes the levels at and above the configured one, and nothing when silent', () => {
    expect(linesAt('info')).toEqual(['info', 'warn', 'error']);
    expect(linesAt('error')).toEqual(['error']);
    expect(linesAt('silent')).toEqual([]);
  });

  it('writes one JSON object a line with the level, the time, the message and the fields', () => {
    const lines: string[] = [];
    jsonLogger('debug', (line) => lines.push(line)).debug('looked', { messageId: 'msg_1' });
    expect(JSON.parse(lines[0]!)).toEqual({ level: 'debug', time: expect.any(String), message: 'looked', messageId: 'msg_1' });
  });
});

describe('LOG_LEVEL', () => {
  it('accepts, in the functions and in npm start alike, exactly the levels the logger writes', () => {
    for (const level of logLevels) {
      expect(readFunctionEnvironment({ TEMPMAIL_ENV: 'test', LOG_LEVEL: level }).LOG_LEVEL).toBe(level);
      expect(readLocalConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  it('refuses any other level in both, naming the variable and the levels it takes', () => {
    const refusal = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return (error as Error).message.replaceAll('\\"', '"');
      }
      throw new Error('LOG_LEVEL=trace was accepted');
    };
    const expected = /LOG_LEVEL[\s\S]*expected one of "debug"\|"info"\|"warn"\|"error"\|"silent"/;
    expect(refusal(() => readFunctionEnvironment({ TEMPMAIL_ENV: 'test', LOG_LEVEL: 'trace' }))).toMatch(expected);
    expect(refusal(() => readLocalConfig({ LOG_LEVEL: 'trace' }))).toMatch(expected);
  });
});
