import { spawn, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';

export interface ProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and returns its exit code and everything it wrote; resolves on
 * `close`, once both streams are drained, so no late output is lost.
 */
export async function runProcess(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<ProcessRun> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code ?? 1, stdout, stderr };
}
