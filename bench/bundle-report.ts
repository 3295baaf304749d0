/**
 * Bundle size and cold import time of every Lambda function (issue: each API handler under
 * 800 KB minified with the AWS SDK bundled, and every function imported in under 100 ms), because
 * both feed the cold start a caller waits for. Each function is bundled the way `NodejsFunction`
 * bundles it (`lib/service-function.ts` with `lib/bundle-settings.ts`: CJS, node22, minified,
 * external source map, SDK bundled); the size is the `.js` alone (1 KB = 1000 bytes), and the
 * largest inputs come from esbuild's metafile, grouped by package. The import time is measured
 * inside a fresh Node process around `require` of the bundle, so Node's own start is excluded;
 * the median of the runs is compared with an empty bundle measured the same way in the same run,
 * and that ratio times the empty bundle's import on a quiet machine (`quietEmptyImportMs`) is
 * the estimate the verdict also reads, since this machine's load moves the raw figures. The
 * functions are deployed without `--enable-source-maps` (docs/decisions.md); the import is
 * measured a second time with it, so that what the flag would cost stays on record. Beside each
 * function, the AWS SDK clients and commands its declared access needs are bundled and imported
 * alone (`support/sdk-floor.ts`): the part of its import that no change to the project's code can
 * remove, printed with the function and with any function over the target. A report,
 * not a test: it exits 0 whatever the figures, and 1 only when a bundle cannot be built or loaded.
 *
 *   node --import tsx bench/bundle-report.ts [runs]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, stop, type Metafile } from 'esbuild';
import { bundleDefines } from '../lambdas/composition/bundle-defines';
import { functionManifest } from '../lambdas/function-manifest';
import { bundleAliases, bundleSettings } from '../lib/bundle-settings';
import { sdkFloor } from './support/sdk-floor';

interface FunctionEntry {
  name: string;
  /**
   * API handlers (routes and the authorizer) carry the issue's targets; the reference is the
   * empty bundle; a floor is the AWS SDK alone that functions need (`support/sdk-floor.ts`).
   */
  kind: 'api' | 'inbound' | 'reference' | 'floor';
  /** A file of the project, or for a floor the module's source. */
  entry: string | { source: string };
  /** The constants its manifest row writes into its bundle (lambdas/composition/bundle-defines.ts). */
  define?: Record<string, string>;
  /** A function's floor: the name of the floor bundle of its SDK clients. */
  floor?: string;
}

interface Bundle extends FunctionEntry {
  outfile: string;
  bytes: number;
  largestInputs: Array<{ group: string; bytes: number }>;
}

const projectRoot = join(__dirname, '..');
const sizeTargetBytes = 800 * 1000;
const importTargetMs = 100;
/**
 * The empty bundle's median import on this machine when quiet (BENCHMARKS.md, 2026-11-25): a
 * function's ratio to the empty bundle of its run, times this, estimates its quiet import.
 */
const quietEmptyImportMs = 8.6;

/** Every function the stack deploys, as its manifest declares it, with the constants its bundle is built with. */
function functionEntries(): FunctionEntry[] {
  return functionManifest.map((declaration) => ({
    name: declaration.name,
    kind: declaration.trigger.kind === 'route' || declaration.trigger.kind === 'authorizer' ? 'api' : 'inbound',
    entry: declaration.entry,
    define: bundleDefines(declaration),
    floor: `sdk: ${sdkFloor(declaration.access).key}`,
  }));
}

/** One floor bundle for each set of SDK clients and commands that functions declare. */
function floorEntries(): FunctionEntry[] {
  const floors = new Map(functionManifest.map((declaration) => sdkFloor(declaration.access)).map((floor) => [floor.key, floor]));
  return [...floors.values()].map((floor) => ({ name: `sdk: ${floor.key}`, kind: 'floor', entry: { source: floor.source } }));
}

/** `node_modules/@smithy/x/...` → `@smithy`, `node_modules/zod/...` → `zod`, own files → `(project)`. */
function inputGroup(path: string): string {
  const marker = 'node_modules/';
  const at = path.lastIndexOf(marker);
  if (at === -1) return '(project)';
  const parts = path.slice(at + marker.length).split('/');
  const name = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  return name.startsWith('@smithy/') ? '@smithy' : name;
}

function largestInputs(output: Metafile['outputs'][string], count: number): Bundle['largestInputs'] {
  const groups = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const group = inputGroup(path);
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  return [...groups]
    .map(([group, bytes]) => ({ group, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** Bundles one entry with the settings `NodejsFunction` passes to esbuild for `ServiceFunction`. */
async function bundle(fn: FunctionEntry, outDir: string): Promise<Bundle> {
  const outfile = join(outDir, fn.name.replace(/[^\w]+/g, '-'), 'index.js');
  const result = await build({
    ...(typeof fn.entry === 'string'
      ? { entryPoints: [fn.entry] }
      : { stdin: { contents: fn.entry.source, resolveDir: projectRoot, loader: 'js' as const } }),
    absWorkingDir: projectRoot,
    outfile,
    bundle: true,
    platform: 'node',
    target: bundleSettings.target,
    format: 'cjs',
    mainFields: [...bundleSettings.mainFields],
    alias: { ...bundleAliases },
    ...(fn.define ? { define: fn.define } : {}),
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourceMap,
    sourcesContent: bundleSettings.sourcesContent,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.metafile.outputs[relative(projectRoot, outfile)];
  if (!output) throw new Error(`${fn.name}: no metafile output for ${outfile}`);
  return { ...fn, outfile, bytes: statSync(outfile).size, largestInputs: largestInputs(output, 3) };
}

/** How the bundle is loaded: as deployed, or with the source map read at load as the flag would have it. */
const importModes = { deployed: [], sourceMaps: ['--enable-source-maps'] } satisfies Record<string, string[]>;
type ImportMode = keyof typeof importModes;
type Medians = Map<string, Record<ImportMode, number>>;

/**
 * What the Lambda runtime provides before it loads a handler: the `awslambda` global that
 * response-streaming handlers (the file routes) wrap themselves with at import.
 */
const lambdaRuntimeGlobal =
  'globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };';

/** One cold import in a fresh process: milliseconds between just before and just after `require`. */
function importOnce(outfile: string, mode: ImportMode): number {
  const script =
    lambdaRuntimeGlobal +
    `const t0 = process.hrtime.bigint(); require(${JSON.stringify(outfile)});` +
    `process.stdout.write(String(process.hrtime.bigint() - t0));`;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawnSync(process.execPath, [...importModes[mode], '-e', script], { encoding: 'utf8', env });
  if (child.status !== 0) throw new Error(`import of ${outfile} failed:\n${child.stderr}`);
  return Number(child.stdout.trim()) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Median import time per bundle. Rounds interleave the bundles so that any drift of the machine
 * touches all of them alike; one unrecorded round first warms the file cache.
 */
function importMedians(bundles: Bundle[], runs: number): Medians {
  const modes = Object.keys(importModes) as ImportMode[];
  for (const b of bundles) importOnce(b.outfile, 'deployed');
  const samples = new Map(bundles.map((b) => [b.name, { deployed: [] as number[], sourceMaps: [] as number[] }]));
  for (let run = 0; run < runs; run++) {
    for (const b of bundles) for (const mode of modes) samples.get(b.name)![mode].push(importOnce(b.outfile, mode));
  }
  return new Map(
    [...samples].map(([name, values]) => [name, { deployed: median(values.deployed), sourceMaps: median(values.sourceMaps) }]),
  );
}

const kb = (bytes: number) => (bytes / 1000).toFixed(1);

/** The function's import as deployed, divided by the empty bundle's of the same run, times the quiet empty bundle's. */
function quietEstimate(medians: Medians, name: string, reference: string): number {
  return (medians.get(name)!.deployed / medians.get(reference)!.deployed) * quietEmptyImportMs;
}

const isFunction = (b: Bundle) => b.kind === 'api' || b.kind === 'inbound';

/** The estimate of the SDK alone that a function needs (its floor bundle), if it has one. */
function floorEstimate(medians: Medians, b: Bundle, reference: string): number | undefined {
  return b.floor ? quietEstimate(medians, b.floor, reference) : undefined;
}

/**
 * The functions at or over the targets: size for the API handlers, import (measured and estimated
 * quiet) for all; each function over the import target with how much of it the SDK alone takes.
 */
function verdicts(bundles: Bundle[], medians: Medians): string[] {
  const reference = bundles.find((b) => b.kind === 'reference')!.name;
  const functions = bundles.filter(isFunction);
  const api = functions.filter((b) => b.kind === 'api');
  const line = (what: string, over: Bundle[], describe = (b: Bundle) => b.name) =>
    `${what}: ${over.length === 0 ? 'met' : `NOT met by ${over.map(describe).join(', ')}`}`;
  const withFloor = (b: Bundle) =>
    `${b.name} (${quietEstimate(medians, b.name, reference).toFixed(0)} ms, of which its AWS SDK clients alone ${floorEstimate(medians, b, reference)!.toFixed(0)} ms)`;
  return [
    line(`every API handler (${api.length}: routes and authorizer) under ${kb(sizeTargetBytes)} KB`, api.filter((b) => b.bytes >= sizeTargetBytes)),
    line(`every function (${functions.length}) imported in under ${importTargetMs} ms as deployed, measured`, functions.filter((b) => medians.get(b.name)!.deployed >= importTargetMs)),
    line(
      `every function imported in under ${importTargetMs} ms as deployed, estimated quiet (ratio × ${quietEmptyImportMs} ms)`,
      functions.filter((b) => quietEstimate(medians, b.name, reference) >= importTargetMs),
      withFloor,
    ),
  ];
}

function printReport(bundles: Bundle[], medians: Medians, runs: number): void {
  const referenceName = bundles.find((b) => b.kind === 'reference')!.name;
  const reference = medians.get(referenceName)!;
  console.log(`cold import, median of ${runs} fresh processes each; Node ${process.version}; 1 KB = 1000 bytes`);
  console.log(
    '| function | kind | size KB | import ms | minus ref ms | ratio to ref | est. quiet ms | its SDK alone, est. quiet ms |' +
      ' with --enable-source-maps ms | minus ref ms | largest inputs (KB in output) |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const b of bundles) {
    const { deployed, sourceMaps } = medians.get(b.name)!;
    const inputs = b.largestInputs.map((input) => `${input.group} ${kb(input.bytes)}`).join(', ');
    const floor = floorEstimate(medians, b, referenceName);
    const figures = [
      deployed.toFixed(1),
      (deployed - reference.deployed).toFixed(1),
      (deployed / reference.deployed).toFixed(1),
      quietEstimate(medians, b.name, referenceName).toFixed(1),
      floor === undefined ? '–' : floor.toFixed(1),
      sourceMaps.toFixed(1),
      (sourceMaps - reference.sourceMaps).toFixed(1),
    ];
    console.log(`| ${[b.name, b.kind, kb(b.bytes), ...figures, inputs].join(' | ')} |`);
  }
  for (const verdict of verdicts(bundles, medians)) console.log(verdict);
}

/** The same figures as one JSON line, for `npm run bench`'s combined table. */
function printJson(bundles: Bundle[], medians: Medians, runs: number): void {
  const referenceName = bundles.find((b) => b.kind === 'reference')!.name;
  const rows = bundles.map((b) => ({
    name: b.name,
    kind: b.kind,
    bytes: b.bytes,
    importMs: medians.get(b.name)!.deployed,
    quietEstimateMs: quietEstimate(medians, b.name, referenceName),
    sourceMapImportMs: medians.get(b.name)!.sourceMaps,
    sdkFloorEstimateMs: floorEstimate(medians, b, referenceName),
  }));
  process.stdout.write(`${JSON.stringify({ runs, sizeTargetBytes, importTargetMs, quietEmptyImportMs, rows })}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const asJson = args.includes('--json');
  const runs = Number(args.find((arg) => arg !== '--json') ?? 10) || 10;
  const outDir = mkdtempSync(join(tmpdir(), 'tempmail-bundle-report-'));
  try {
    const emptyEntry = join(outDir, 'empty-handler.ts');
    writeFileSync(emptyEntry, 'export const handler = async (): Promise<void> => {};\n');
    const entries = [...functionEntries(), ...floorEntries(), { name: 'emptyHandler', kind: 'reference', entry: emptyEntry } as const];
    let bundles: Bundle[];
    try {
      bundles = await Promise.all(entries.map((fn) => bundle(fn, outDir)));
    } catch (error) {
      console.error(`bundling failed: ${(error as Error).message}`);
      process.exitCode = 1;
      return;
    } finally {
      await stop(); // esbuild's service process is not left running beside the timed imports
    }
    const medians = importMedians(bundles, runs);
    if (asJson) printJson(bundles, medians, runs);
    else printReport(bundles, medians, runs);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
