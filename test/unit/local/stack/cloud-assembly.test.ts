import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ensureCloudAssembly } from '../../../../local/stack/cloud-assembly';

/**
 * The folders of the synthesized stack: one per digest of the sources and context, so that a
 * synthesis for other settings never rewrites the assembly a running stack loads its functions
 * from. `cdk synth` is replaced by a stand-in that writes a file: what is tested is where each
 * synthesis goes and what is kept, not the synthesis.
 */
let base: string;
const before = process.env.TEMPMAIL_STACK_CDK_OUT;
beforeEach(async () => {
  base = join(await mkdtemp(join(tmpdir(), 'tempmail-assemblies-')), 'cdk.out.stack');
  process.env.TEMPMAIL_STACK_CDK_OUT = base;
});
afterEach(async () => {
  if (before === undefined) delete process.env.TEMPMAIL_STACK_CDK_OUT;
  else process.env.TEMPMAIL_STACK_CDK_OUT = before;
  await rm(dirname(base), { recursive: true, force: true });
});

/** A `cdk synth` stand-in that writes the context it was given into the assembly, and counts its runs. */
function fakeSynth(context: Record<string, string>) {
  const runs: string[] = [];
  return {
    runs,
    synthesize: async (out: string) => {
      runs.push(out);
      await mkdir(out, { recursive: true });
      await writeFile(join(out, 'template.json'), JSON.stringify(context));
    },
  };
}

const assemble = (context: Record<string, string>, synth = fakeSynth(context)) =>
  ensureCloudAssembly(context, () => undefined, synth.synthesize);

/** A process that runs until it is killed, standing for a stack started from an assembly. */
async function runningProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

/** Records `pid` as the only user of an assembly, as if that process had been given it. */
async function onlyUser(assembly: string, pid: number): Promise<void> {
  await rm(`${assembly}.users`, { recursive: true, force: true });
  await mkdir(`${assembly}.users`);
  await writeFile(join(`${assembly}.users`, String(pid)), '');
}

describe('the synthesized stack’s folders', () => {
  it('synthesizes once for the same sources and context, also when asked twice at once, and reuses it', async () => {
    const synth = fakeSynth({ stage: 'local' });
    const [first, second] = await Promise.all([assemble({ stage: 'local' }, synth), assemble({ stage: 'local' }, synth)]);
    expect(second).toBe(first);
    expect(dirname(first)).toBe(base);
    expect(basename(first)).toMatch(/^[0-9a-f]{16}$/);
    expect(await assemble({ stage: 'local' }, synth)).toBe(first);
    expect(synth.runs).toEqual([first]);
    expect(JSON.parse(await readFile(join(first, 'template.json'), 'utf8'))).toEqual({ stage: 'local' });
  });

  it('gives other settings a folder of their own, keeps an assembly a running process uses, and removes one nobody uses', async () => {
    const first = await assemble({ stage: 'local', domains: 'a.test' });
    const running = await runningProcess();
    let second: string;
    try {
      await onlyUser(first, running.pid!);
      second = await assemble({ stage: 'local', domains: 'b.test' });
      expect(second).not.toBe(first);
      // The stack started from the first assembly still finds every file of it.
      expect(JSON.parse(await readFile(join(first, 'template.json'), 'utf8'))).toEqual({ stage: 'local', domains: 'a.test' });
    } finally {
      running.kill();
      await once(running, 'exit');
    }
    // Its only user has ended: the next synthesis removes it, and keeps the one this process uses.
    const third = await assemble({ stage: 'local', domains: 'c.test' });
    expect(existsSync(first)).toBe(false);
    expect(existsSync(`${first}.users`)).toBe(false);
    expect(existsSync(join(second, 'template.json'))).toBe(true);
    expect((await readdir(base)).sort()).toEqual([basename(second), `${basename(second)}.users`, basename(third), `${basename(third)}.users`].sort());
  });

  it('removes the single assembly of the earlier layout, written straight into the folder, at its first synthesis', async () => {
    await mkdir(join(base, 'asset.0123'), { recursive: true });
    await writeFile(join(base, 'source-digest'), 'an earlier digest');
    await writeFile(join(base, 'Tempmail-local.template.json'), '{}');
    const assembly = await assemble({ stage: 'local' });
    expect((await readdir(base)).sort()).toEqual([basename(assembly), `${basename(assembly)}.users`].sort());
  });
});
