/**
 * How every function is bundled, in one place for the stack and for the bundle checks: esbuild
 * for Node.js 22, minified, with source maps, preferring packages' ES module builds so that
 * esbuild can drop the AWS SDK commands a function never sends.
 */
export const bundleSettings = {
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
} as const;
