import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const clientDir = join(__dirname, '..', '..', '..', 'client');

describe('the client types generated from openapi/openapi.yaml', () => {
  it('are current: regenerating them gives the checked-in file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-types-'));
    try {
      const out = join(dir, 'openapi.ts');
      const run = spawnSync('npx', ['openapi-typescript', '../openapi/openapi.yaml', '--redocly', 'redocly.generate.yaml', '-o', out], {
        cwd: clientDir,
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      const checkedIn = readFileSync(join(clientDir, 'src', 'generated', 'openapi.ts'), 'utf8');
      // A failure here means: run `npm run generate` in client/ and commit the result.
      expect(readFileSync(out, 'utf8')).toBe(checkedIn);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
