/**
 * Stands in for `linkify-it` in the bundled functions (the alias in `lib/bundle-settings.ts`).
 *
 * mailparser builds its link finder when it is imported: it configures linkify-it with the full
 * list of top-level domains, and each configuration call recompiles linkify-it's patterns (about
 * 7 % of the SES parser's cold import, BENCHMARKS.md). The finder is only asked for links when a
 * plain-text part is turned into HTML with `skipTextLinks` off, and `parseMail` keeps it on, so in
 * the parser the finder is never used. This object takes the configuration calls as they come and
 * builds the real linkify-it, with the same calls in the same order, the first time anything else
 * is asked of it: with text links turned on, the same links are found (at the cost of that first
 * build), and nothing about mailparser needs patching.
 */
export function linkifyOnFirstUse(...args: unknown[]): Linkify {
  const pending: Array<{ method: ConfiguringMethod; args: unknown[] }> = [];
  let built: Linkify | undefined;
  const real = (): Linkify => {
    if (!built) {
      // A relative path, not the package name: the alias would send that back to this module.
      const LinkifyIt = require('../../node_modules/linkify-it/build/index.cjs.js') as (...args: unknown[]) => Linkify;
      built = LinkifyIt(...args);
      for (const call of pending.splice(0)) (built[call.method] as (...args: unknown[]) => unknown)(...call.args);
    }
    return built;
  };
  const stand: Linkify = new Proxy({} as Linkify, {
    get(_target, key) {
      if (!built && configuringMethods.has(key as ConfiguringMethod)) {
        return (...args: unknown[]) => {
          pending.push({ method: key as ConfiguringMethod, args });
          return stand;
        };
      }
      const value = real()[key as keyof Linkify];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(built) : value;
    },
  });
  return stand;
}

/** Methods that only configure the finder and answer with it, so that calls chain. */
const configuringMethods = new Set(['add', 'set', 'tlds'] as const);
type ConfiguringMethod = typeof configuringMethods extends Set<infer M> ? M : never;

/** What mailparser uses of a linkify-it instance (the package ships no types). */
export interface Linkify {
  add(schema: string, definition: unknown): Linkify;
  set(options: Record<string, boolean>): Linkify;
  tlds(list: string | string[], keepOld?: boolean): Linkify;
  test(text: string): boolean;
  pretest(text: string): boolean;
  match(text: string): Array<{ index: number; lastIndex: number; raw: string; text: string; url: string; schema: string }> | null;
}

/** The package's own shape: mailparser imports linkify-it's default export and calls it. */
export default linkifyOnFirstUse;
