import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../local/is-running';
import { withDirectoryLock } from '../../local/with-directory-lock';
import { runProcess } from './run-process';

const projectRoot = join(__dirname, '..', '..');
const clientRoot = join(projectRoot, 'client');

export interface PackedClient {
  /** The tarball `npm pack` wrote, as a user installs it. */
  tarball: string;
  /** The tarball unpacked (its `package` folder): the package's files as they ship, `dist/cli.js` among them. */
  unpacked: string;
}

/**
 * The Jest run this process belongs to: a worker's parent (Jest forks its workers with a channel),
 * else this process, which runs the suites in band. One pack serves one run, so each run packs anew.
 */
const runPid = process.send ? process.ppid : process.pid;
const packPrefix = 'tempmail-client-pack-';

/**
 * The client package packed with `npm pack` (its `prepack` builds it) and unpacked: once a run,
 * shared by the suites that install it or run its `bin`, whichever worker asks first. The build
 * takes seconds of processor time (tsc), and `npm pack` writes the package's own dist folder, so
 * two suites packing at once would write under each other.
 * The one that packs holds a lock folder naming its pid; the others wait for its `done` marker,
 * and take over a lock whose process has died.
 */
export async function packedClient(withinMs = 120_000): Promise<PackedClient> {
  const dir = join(tmpdir(), `${packPrefix}${runPid}`);
  const done = join(dir, 'done');
  const lock = `${dir}.lock`;
  const finished = async () => {
    const marker = await readFile(done, 'utf8').catch(() => undefined);
    return marker === undefined ? undefined : (JSON.parse(marker) as PackedClient);
  };
  // Another worker may have packed it while this one waited for the lock.
  return withDirectoryLock(lock, async () => (await finished()) ?? pack(dir, done), { withinMs });
}

async function pack(dir: string, done: string): Promise<PackedClient> {
  // What earlier runs packed goes (their Jest process is gone); this run's own is made afresh.
  for (const name of await readdir(tmpdir())) {
    const [, owner, isLock] = new RegExp(`^${packPrefix}(\\d+)(\\.lock)?$`).exec(name) ?? [];
    const pid = Number(owner);
    if (pid && (pid === runPid ? !isLock : !isRunning(pid))) await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  // The user's own shell: nothing of this Jest run; offline, as the install that follows is.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('JEST_')));
  const packed = await runProcess('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: clientRoot,
    env: { ...env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stdout}${packed.stderr}`);
  const tarballs = (await readdir(dir)).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`npm pack wrote ${tarballs.length} tarballs: ${tarballs.join(', ')}`);
  const tarball = join(dir, tarballs[0]!);
  const unpacking = await runProcess('tar', ['-xzf', tarball, '-C', dir]);
  if (unpacking.code !== 0) throw new Error(`tar could not unpack ${tarball}:\n${unpacking.stderr}`);
  const result: PackedClient = { tarball, unpacked: join(dir, 'package') };
  await writeFile(done, JSON.stringify(result));
  return result;
}
