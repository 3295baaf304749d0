import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

/**
 * The source's import graph, read from the files themselves: no two modules import each other
 * (the lower one owns the type or interface both need), the mail rules import nothing from
 * the SES entry points that call them, and the core's ports live in one folder, one file a port,
 * importing nothing of the project outside the core.
 */
const root = resolve(__dirname, '..', '..', '..');
const sourceRoots = ['bin', 'cli', 'client/src', 'console/src', 'lambdas', 'lib', 'local', 'openapi'];
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolved(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const graph = new Map(
  sourceRoots
    .flatMap((dir) => sourceFiles(join(root, dir)))
    .map((file) => [file, new Set([...readFileSync(file, 'utf8').matchAll(importPattern)].map((match) => resolved(file, match[1]!)).filter((found) => found !== undefined))]),
);
const name = (file: string) => relative(root, file);

it('reads the whole source', () => {
  expect(graph.size).toBeGreaterThan(150);
  expect(graph.get(join(root, 'lambdas/inbound/ses-parser.ts'))).toContain(join(root, 'lambdas/mail/ingest-mail.ts'));
});

it('has no two modules that import each other', () => {
  const pairs = [...graph].flatMap(([file, imports]) =>
    [...imports].filter((imported) => file < imported && graph.get(imported)?.has(file)).map((imported) => [name(file), name(imported)]),
  );
  expect(pairs).toEqual([]);
});

it('keeps the mail rules apart from the SES entry points: lambdas/mail imports nothing from lambdas/inbound', () => {
  const inward = [...graph]
    .filter(([file]) => name(file).startsWith('lambdas/mail/'))
    .flatMap(([file, imports]) => [...imports].filter((imported) => name(imported).startsWith('lambdas/inbound/')).map((imported) => `${name(file)} -> ${name(imported)}`));
  expect(inward).toEqual([]);
});

describe('the ports: lambdas/core/ports, one file a port', () => {
  const ports = [...graph].filter(([file]) => name(file).startsWith('lambdas/core/ports/'));

  it('import nothing of the project outside lambdas/core', () => {
    expect(ports.length).toBeGreaterThan(10);
    const outward = ports.flatMap(([file, imports]) =>
      [...imports].filter((imported) => !name(imported).startsWith('lambdas/core/')).map((imported) => `${name(file)} -> ${name(imported)}`),
    );
    expect(outward).toEqual([]);
  });

  it('each export the port they are named after, and import no type inline', () => {
    const misnamed = ports.flatMap(([file]) => {
      const text = readFileSync(file, 'utf8');
      const port = basename(file, '.ts').replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
      return [
        ...(new RegExp(`^export interface ${port}\\b`, 'm').test(text) ? [] : [`${name(file)} does not export the interface ${port}`]),
        ...(/\bimport\(/.test(text) ? [`${name(file)} imports a type inline`] : []),
      ];
    });
    expect(misnamed).toEqual([]);
  });

  it('are declared nowhere else in lambdas/', () => {
    const elsewhere = [...graph]
      .filter(([file]) => name(file).startsWith('lambdas/') && !name(file).startsWith('lambdas/core/ports/'))
      .flatMap(([file]) =>
        [...readFileSync(file, 'utf8').matchAll(/^export interface (\w+(?:Store|Registry|Queue|Reads|Renderer|Verifier)|Clock|Logger|Ledger)\b/gm)].map(
          (match) => `${name(file)}: ${match[1]}`,
        ),
      );
    expect(elsewhere).toEqual([]);
  });
});

it("makes the stack's synthesis anew on a change of any file the app imports: each is under a source of its digest", () => {
  const { synthesisSources } = require('../../../local/stack/cloud-assembly') as typeof import('../../../local/stack/cloud-assembly');
  const importsOf = (file: string) =>
    graph.get(file) ?? new Set([...readFileSync(file, 'utf8').matchAll(importPattern)].map((match) => resolved(file, match[1]!)).filter((found) => found !== undefined));
  const reached = new Set<string>();
  const pending = [join(root, 'bin/app.ts')];
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    pending.push(...importsOf(file));
  }
  expect(reached.size).toBeGreaterThan(50);
  const uncovered = [...reached].map(name).filter((file) => !synthesisSources.some((source) => file === source || file.startsWith(`${source}/`)));
  expect(uncovered).toEqual([]);
});
