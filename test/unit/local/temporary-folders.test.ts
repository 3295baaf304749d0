import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a run without a data directory, or a synthesis, puts in the system's temporary folder is
 * gone when it ends. Each test runs the code in a process whose TMPDIR is a folder of the test's
 * own, so what it finds there is what that code made and left.
 */
const projectRoot = join(__dirname, '..', '..', '..');
let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tempmail-scratch-test-'));
});
afterEach(() => rm(scratch, { recursive: true, force: true }));

/**
 * Runs `script` in a Node process of its own (the project's TypeScript through tsx) whose TMPDIR
 * is this test's folder, and returns what it printed: the system's temporary folder is read by
 * Node's own modules, which a test's environment cannot point elsewhere in-process.
 */
function runWithScratch(script: string): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: projectRoot, env: { ...process.env, TMPDIR: scratch }, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the script failed (${child.status}): ${child.stderr}`);
  return child.stdout;
}

const foldersNamed = async (prefix: string) => (await readdir(scratch)).filter((name) => name.startsWith(prefix));

describe('temporary folders', () => {
  it('npm start’s runtime and the stack’s storage without a data directory keep blobs in a folder of their own, removed when they stop', async () => {
    const script = `
      const { readdirSync } = require('node:fs');
      const { Readable } = require('node:stream');
      const { startLocal } = require('./local/start-local');
      const { startStackStorage } = require('./local/stack/stack-storage');
      const { systemClock } = require('./lambdas/adapters/system-clock');
      const { testConfig } = require('./test/support/test-config');
      const blobFolders = () => readdirSync(process.env.TMPDIR).filter((name) => name.startsWith('tempmail-blobs-'));
      (async () => {
        const seen = {};
        const runtime = await startLocal({ ...testConfig, dataDir: undefined, logLevel: 'error' }, { backgroundSweep: false });
        await runtime.services.blobs.put('mail/m1/raw', Readable.from([Buffer.from('raw mail')]));
        seen.running = blobFolders().map((name) => [name, readdirSync(process.env.TMPDIR + '/' + name).length]);
        await runtime.close();
        seen.stopped = blobFolders();
        const storage = await startStackStorage({ Resources: {} }, { dataDir: undefined, cursorSecret: testConfig.cursorSecret }, systemClock);
        seen.stackRunning = blobFolders().length;
        seen.stackRoot = storage.blobRoot.startsWith(process.env.TMPDIR + '/tempmail-blobs-');
        await storage.close();
        seen.stackStopped = blobFolders();
        process.stdout.write(JSON.stringify(seen));
      })();`;
    const seen = JSON.parse(runWithScratch(script));
    expect(seen.running).toEqual([[expect.stringMatching(/^tempmail-blobs-/), expect.any(Number)]]);
    expect(seen.running[0][1]).toBeGreaterThan(0);
    expect(seen.stopped).toEqual([]);
    expect(seen).toMatchObject({ stackRunning: 1, stackRoot: true, stackStopped: [] });
    expect(await foldersNamed('tempmail-blobs-')).toEqual([]);
  });

  it('a synthesis’s scratch folder (the console’s site) lasts as long as the process, and goes with it', async () => {
    const script = `
      const { readFileSync, writeFileSync } = require('node:fs');
      const { synthesisScratchFolder } = require('./lib/synthesis-scratch');
      const folder = synthesisScratchFolder('tempmail-console-');
      writeFileSync(folder + '/index.html', 'site');
      process.stdout.write(readFileSync(folder + '/index.html', 'utf8') + ' ' + folder);`;
    const [content, folder] = runWithScratch(script).split(' ');
    expect(content).toBe('site');
    expect(folder!.startsWith(join(scratch, 'tempmail-console-'))).toBe(true);
    expect(await foldersNamed('tempmail-console-')).toEqual([]);
  });
});
