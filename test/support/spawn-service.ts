import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';

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
}

/** Runs `npm start` exactly as a person would, and waits for its `ready` line. */
export async function spawnNpmStart(env: Record<string, string>, readyWithinMs = 20_000): Promise<SpawnedService> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0', SMTP_PORT: '0', ...env },
    detached: true,
  });
  let output = '';
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
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = once(child, 'close');
      process.kill(-child.pid!, signal);
      await closed;
    },
  };
}

/** Runs the operator CLI as `npm run --silent admin -- …` does, and returns its output and status. */
export async function runAdminCommand(args: string[], env: Record<string, string>) {
  const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: projectRoot, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number, stdout, stderr };
}
