import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders = new Set<string>();

/**
 * A temporary folder for files the app builds at synthesis and publishes as an asset (the
 * console's site and API reference). CDK stages an asset into the cloud assembly, but the source
 * must stay until the app has synthesized, so every such folder is removed when the process exits.
 * Each synthesis used to leave its folder behind: a machine that runs the tests gathered them by
 * the thousand.
 */
export function synthesisScratchFolder(prefix: string): string {
  if (folders.size === 0) {
    process.once('exit', () => {
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    });
  }
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.add(folder);
  return folder;
}
