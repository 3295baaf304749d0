import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';
import { withDirectoryLock } from '../with-directory-lock';

const root = join(__dirname, '..', '..');
/**
 * What the synthesized stack is built from: a change to any of these makes a new synthesis. The
 * app reads `console` (the site it publishes, its headers, the support contact's rule) and
 * `openapi` (the API reference it publishes) beside the functions' sources.
 */
export const synthesisSources = ['bin', 'lib', 'lambdas', 'console', 'openapi', 'package-lock.json', 'cdk.json', 'tsconfig.json'];

async function* files(path: string): AsyncGenerator<string> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (!entries) {
    yield path;
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) yield* files(join(path, entry.name));
}

/** A digest of the sources and the context: the cloud assembly is reused while it is the same. */
async function sourceDigest(context: Record<string, string>): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(context));
  for (const source of synthesisSources) {
    for await (const file of files(join(root, source))) hash.update(relative(root, file)).update(await readFile(file));
  }
  return hash.digest('hex');
}

/**
 * Put first on the synthesis's PATH: its `npx` runs `npx --no-install esbuild …` (how aws-cdk-lib's
 * NodejsFunction runs the project's esbuild, once per function) as the project's esbuild binary
 * with the same arguments, and hands any other command to the real npx. npm's start-up, paid once
 * per function, was a third of a synthesis's processor time; the bundles are the same.
 */
const synthPath = join(__dirname, 'synth-path');

/**
 * The synthesized app for this context (`cdk synth` into `cdk.out.stack/`), reused when the
 * sources and context have not changed since: a first synthesis bundles every function.
 */
export async function ensureCloudAssembly(context: Record<string, string>, log: (line: string) => void): Promise<string> {
  const out = process.env.TEMPMAIL_STACK_CDK_OUT ?? join(root, 'cdk.out.stack');
  const digest = await sourceDigest(context);
  const stamp = join(out, 'source-digest');
  const current = async () => existsSync(stamp) && (await readFile(stamp, 'utf8')) === digest;
  if (await current()) return out;
  // `npm run start:stack` and the suites that read the synthesized stack may start together: one
  // synthesis (minutes of bundling on two cores) serves them all.
  return withDirectoryLock(`${out}.lock`, async () => {
    // Another process may have made this very synthesis while this one waited for the lock.
    if (await current()) return out;
    log(`tempmail synthesizing the stack into ${relative(process.cwd(), out) || out} (a first synthesis bundles every function)`);
    await rm(out, { recursive: true, force: true });
    const args = ['synth', '--quiet', '--no-notices', '--output', out, ...Object.entries(context).flatMap(([key, value]) => ['--context', `${key}=${value}`])];
    // The pinned CLI itself, as `npx cdk` finds it, without npm's start-up; synthPath takes npm's
    // start-up out of each function's bundling too.
    const env = { ...process.env, AWS_REGION: 'us-east-1', PATH: `${synthPath}${delimiter}${process.env.PATH ?? ''}` };
    await new Promise<void>((resolve, reject) => {
      const child = spawn(join(root, 'node_modules', '.bin', 'cdk'), args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env });
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cdk synth failed (${code}): ${errors}`))));
    });
    await writeFile(stamp, digest);
    return out;
  });
}
