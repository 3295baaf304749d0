import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';
import { isRunning } from '../is-running';
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
 * The synthesized app for this context, reused while the sources and context are unchanged: a
 * first synthesis bundles every function. Each digest of them has a folder of its own under
 * `cdk.out.stack/` (or `TEMPMAIL_STACK_CDK_OUT`), so a process that synthesizes for other sources
 * or settings (a second `npm run start:stack`, the test suites, a change of code) never rewrites
 * the assembly a running stack loads its functions from. Every process given an assembly is
 * recorded as its user; an assembly no running process uses is removed after the next synthesis.
 */
export async function ensureCloudAssembly(
  context: Record<string, string>,
  log: (line: string) => void,
  synthesize: (out: string) => Promise<void> = (out) => cdkSynth(context, out),
): Promise<string> {
  const base = process.env.TEMPMAIL_STACK_CDK_OUT ?? join(root, 'cdk.out.stack');
  const digest = await sourceDigest(context);
  const out = join(base, digest.slice(0, assemblyNameLength));
  const stamp = join(out, 'source-digest');
  const current = async () => existsSync(stamp) && (await readFile(stamp, 'utf8')) === digest;
  // The bookkeeping lock is held for moments, never across a synthesis. This process is a user
  // before it looks, so no other process's clean-up can remove the assembly it is about to load.
  const made = await withDirectoryLock(`${base}.lock`, async () => {
    await mkdir(usersOf(out), { recursive: true });
    await writeFile(join(usersOf(out), String(process.pid)), '');
    return current();
  });
  if (made) return out;
  // `npm run start:stack` and the suites that read the synthesized stack may start together: one
  // synthesis (minutes of bundling on two cores) serves them all.
  await withDirectoryLock(`${out}.lock`, async () => {
    // Another process may have made this very synthesis while this one waited for the lock.
    if (await current()) return;
    log(`tempmail synthesizing the stack into ${relative(process.cwd(), out) || out} (a first synthesis bundles every function)`);
    await rm(out, { recursive: true, force: true });
    await synthesize(out);
    await writeFile(stamp, digest);
  });
  await withDirectoryLock(`${base}.lock`, () => removeUnusedAssemblies(base, out));
  return out;
}

/** An assembly's folder name: the first characters of its digest. */
const assemblyNameLength = 16;
const assemblyName = new RegExp(`^[0-9a-f]{${assemblyNameLength}}$`);

/** Where the processes using an assembly are recorded, one empty file per process id. */
const usersOf = (assembly: string) => `${assembly}.users`;

/**
 * Removes every assembly under `base` but `keep` that no running process uses, with its record of
 * users; in the ones kept, forgets the users that have ended. Call it holding `base`'s lock.
 */
export async function removeUnusedAssemblies(base: string, keep: string): Promise<void> {
  const entries = await readdir(base);
  // The one assembly of the layout before folders per digest, written straight into `base`:
  // everything there but the assemblies of this layout and their records.
  if (entries.includes('source-digest')) {
    const ofThisLayout = (name: string) => assemblyName.test(name.replace(/\.(users|lock)$/, ''));
    for (const entry of entries.filter((name) => !ofThisLayout(name))) await rm(join(base, entry), { recursive: true, force: true });
  }
  for (const entry of entries) {
    if (!assemblyName.test(entry)) continue;
    const assembly = join(base, entry);
    const users = await readdir(usersOf(assembly)).catch(() => [] as string[]);
    const ended = users.filter((pid) => !isRunning(Number(pid)));
    if (assembly !== keep && ended.length === users.length) {
      await rm(assembly, { recursive: true, force: true });
      await rm(usersOf(assembly), { recursive: true, force: true });
      continue;
    }
    for (const pid of ended) await rm(join(usersOf(assembly), pid), { force: true });
  }
}

/** `cdk synth` of the app with this context into `out`. */
async function cdkSynth(context: Record<string, string>, out: string): Promise<void> {
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
}
