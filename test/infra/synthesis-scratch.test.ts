import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runWithTmpdir } from '../support/tmpdir-process';
import { folderPerTest } from '../support/folder-per-test';

const scratch = folderPerTest('tempmail-scratch-test-');

describe('the synthesis’s scratch folders', () => {
  it('keep what the app builds for an asset (the console’s site) as long as the process runs, and go with it', async () => {
    const script = `
      const { readFileSync, writeFileSync } = require('node:fs');
      const { synthesisScratchFolder } = require('./lib/synthesis-scratch');
      const folder = synthesisScratchFolder('tempmail-console-');
      writeFileSync(folder + '/index.html', 'site');
      process.stdout.write(readFileSync(folder + '/index.html', 'utf8') + ' ' + folder);`;
    const [content, folder] = (await runWithTmpdir(script, scratch.path)).split(' ');
    expect(content).toBe('site');
    expect(folder!.startsWith(join(scratch.path, 'tempmail-console-'))).toBe(true);
    // (tsx keeps its cache there too: only the code's own folders are looked for.)
    expect((await readdir(scratch.path)).filter((name) => name.startsWith('tempmail-console-'))).toEqual([]);
  }, 60_000);
});
