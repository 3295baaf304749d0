import { readdir } from 'node:fs/promises';
import { runWithTmpdir } from '../../support/tmpdir-process';
import { folderPerTest } from '../../support/folder-per-test';

const scratch = folderPerTest('tempmail-scratch-test-');

describe('the blob folder without a data directory', () => {
  it('is one of its own for npm start’s runtime and for the stack’s storage, removed when they stop', async () => {
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
    const seen = JSON.parse(await runWithTmpdir(script, scratch.path));
    expect(seen.running).toEqual([[expect.stringMatching(/^tempmail-blobs-/), expect.any(Number)]]);
    expect(seen.running[0][1]).toBeGreaterThan(0);
    expect(seen.stopped).toEqual([]);
    expect(seen).toMatchObject({ stackRunning: 1, stackRoot: true, stackStopped: [] });
    // (tsx keeps its cache there too: only the code's own folders are looked for.)
    expect((await readdir(scratch.path)).filter((name) => name.startsWith('tempmail-blobs-'))).toEqual([]);
  }, 60_000);
});
