// The ES module entries of the package: each re-exports its CommonJS build by name, so that
// `import` and `require` share one copy of every class (no dual-package hazard: an error thrown
// by the Playwright fixture is `instanceof` the class a test imported either way).
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
for (const entry of ['index', 'playwright']) {
  const names = Object.keys(require(join(dist, `${entry}.js`))).filter((name) => name !== 'default' && name !== '__esModule').sort();
  const source = [
    `import cjs from './${entry}.js';`,
    `export const { ${names.join(', ')} } = cjs;`,
    '',
  ].join('\n');
  writeFileSync(join(dist, `${entry}.mjs`), source);
  writeFileSync(join(dist, `${entry}.d.mts`), `export * from './${entry}.js';\n`);
}
