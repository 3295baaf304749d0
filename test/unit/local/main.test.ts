import { build } from 'esbuild';

/**
 * `npm start` is the shipped local service: the permission check's call recording is a test
 * instrument, given to the runtime through `startLocal`'s overrides by the suites that start it
 * (test/support/call-recording.ts), and never part of the code `npm start` runs.
 */
describe('npm start’s code', () => {
  it('carries no permission-check instrument: the call recorder is not among the modules it loads', async () => {
    const result = await build({
      entryPoints: ['local/main.ts'],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const modules = Object.keys(result.metafile.inputs);
    expect(modules).toContain('local/start-local.ts');
    expect(modules).toContain('local/smtp-delivery.ts');
    expect(modules.filter((path) => path.startsWith('local/iam/recording') || path.startsWith('test/'))).toEqual([]);
  });
});
