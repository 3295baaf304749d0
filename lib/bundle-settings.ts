import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Modules every bundle takes from elsewhere (esbuild's `alias`, absolute so that it resolves the
 * same wherever esbuild runs).
 *
 * - The SDK's default credential chain becomes the environment alone
 *   (`lambdas/composition/default-provider.ts` says why): the chain's SSO and STS clients were
 *   ~58 KB of every function's bundle, loaded at each cold start and never used in Lambda.
 * - `libmime` is its CommonJS build for every importer. mailparser imports it as an ES module and
 *   mailsplit requires it, and the package's `exports` answer each with its own build, so the
 *   SES parser carried and loaded two copies of the same version (~96 KB, its MIME type and
 *   charset tables built twice at import). Only one version is installed; the builds are the same
 *   code.
 * - `linkify-it` is built on first use (`lambdas/mail/linkify-on-first-use.ts` says why):
 *   mailparser compiles its link finder at import, and the parser never asks it for a link.
 * - The HTML parser family of sanitize-html and html-to-text (`htmlparser2`, `domutils`,
 *   `domhandler`, `domelementtype`, `dom-serializer`) is its CommonJS build for every importer,
 *   for the same reason as libmime: sanitize-html requires them, html-to-text imports them, and
 *   each of the two carries its own copy of htmlparser2 and domutils (the same versions). The SES
 *   parser bundled every one twice, and with them `entities` four times (two versions, each as an
 *   ES and a CommonJS build, its decoding tables built at import by each): now one copy of each,
 *   and of each version of `entities` (−147 KB). `sharedCopy` refuses to build if the two
 *   importers' copies ever differ in version.
 */
export const bundleAliases: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(__dirname, '..', 'lambdas', 'composition', 'default-provider.ts'),
  libmime: require.resolve('libmime'),
  'linkify-it': join(__dirname, '..', 'lambdas', 'mail', 'linkify-on-first-use.ts'),
  htmlparser2: sharedCopy('htmlparser2', ['sanitize-html', 'html-to-text']),
  domutils: sharedCopy('domutils', ['sanitize-html', 'html-to-text']),
  domhandler: require.resolve('domhandler'),
  domelementtype: require.resolve('domelementtype'),
  'dom-serializer': require.resolve('dom-serializer'),
};

/**
 * The CommonJS build of a package of which each importer has its own copy in its `node_modules`,
 * as the first importer requires it; throws when the copies are of different versions, which
 * one build could not stand for.
 */
function sharedCopy(name: string, importers: readonly string[]): string {
  const builds = importers.map((importer) => require.resolve(name, { paths: [dirname(require.resolve(importer))] }));
  const versions = new Set(builds.map((build) => versionOf(name, build)));
  if (versions.size > 1) {
    throw new Error(`${importers.join(' and ')} use different versions of ${name} (${[...versions].join(', ')}): one bundled copy cannot serve both`);
  }
  return builds[0]!;
}

/** The version in the `package.json` of the package a resolved file belongs to. */
function versionOf(name: string, file: string): string {
  const marker = `node_modules/${name}/`;
  const root = file.slice(0, file.lastIndexOf(marker) + marker.length);
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * How every function is bundled, in one place for the stack and for the bundle checks: esbuild
 * for Node.js 22, minified, preferring packages' ES module builds so that esbuild can drop the
 * AWS SDK commands a function never sends, with `bundleAliases` applied.
 *
 * The source map is written beside the bundle, without the sources' text (they are in the
 * repository at the deployed commit): the functions do not load it (no `--enable-source-maps`,
 * which parses every bundle's map at each cold start; docs/decisions.md), but a position of a
 * logged stack trace can be looked up in it, and setting the flag on a function while
 * investigating maps its traces at once.
 */
export const bundleSettings = {
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  esbuildArgs: Object.fromEntries(Object.entries(bundleAliases).map(([from, to]) => [`--alias:${from}`, to])),
} as const;
