import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { runProcess } from './run-process';

const projectRoot = `${__dirname}/../..`;

export interface SpawnedService {
  child: ChildProcessWithoutNullStreams;
  apiUrl: string;
  smtpPort: number;
  output: () => string;
  /**
   * Sends a signal to the whole process group, as Ctrl-C in a terminal does, and resolves once
   * every process of it has closed its output (so the data directory is released).
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Sends a signal to the one process `npm start` created (as a process manager, a container
   * runtime or CI does) and resolves once every process of its group has closed its output;
   * rejects if that has not happened within `withinMs`.
   */
  signalProcess(signal: NodeJS.Signals, withinMs?: number): Promise<void>;
}

/** Runs `npm start` exactly as a person would, and waits for its `ready` line. */
export async function spawnNpmStart(env: Record<string, string>, readyWithinMs = 20_000, script = 'start'): Promise<SpawnedService> {
  const child = spawn('npm', ['run', '--silent', script], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0', SMTP_PORT: '0', ...env },
    detached: true,
  });
  let output = '';
  let allClosed = false;
  child.on('close', () => (allClosed = true));
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${readyWithinMs} ms:\n${output}`)), readyWithinMs);
    const check = () => {
      const match = /ready: api (http:\/\/\S+) smtp smtp:\/\/[^:\s]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`npm start exited before ready:\n${output}`));
    });
  });
  return {
    child,
    apiUrl: ready[1]!,
    smtpPort: Number(ready[2]),
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      // npm may have exited while a process of its group still holds the output open.
      if (allClosed) return;
      const closed = once(child, 'close');
      try {
        process.kill(-child.pid!, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      await closed;
    },
    signalProcess: async (signal, withinMs = 10_000) => {
      const closed = once(child, 'close');
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${withinMs} ms after ${signal} to pid ${child.pid}:\n${output}`)), withinMs);
      });
      try {
        await Promise.race([closed, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs the operator CLI as `npm run --silent admin -- …` does, and returns its output and status. */
export function runAdminCommand(args: string[], env: Record<string, string>) {
  return runProcess('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: projectRoot, env: { ...process.env, ...env } });
}
