import { linkifyOnFirstUse, type Linkify } from '../../../lambdas/mail/linkify-on-first-use';

/** The list mailparser configures (the `tlds` package, which ships no types). */
const tlds = jest.requireActual<string[]>('tlds');
const realLinkifyPath = '../../../node_modules/linkify-it/build/index.cjs.js';
/** How many real finders were built: the stand-in must build one at its first use, and none before. */
const built = { count: 0 };
jest.mock('../../../node_modules/linkify-it/build/index.cjs.js', () => {
  const actual = jest.requireActual('../../../node_modules/linkify-it/build/index.cjs.js');
  return (...args: unknown[]) => {
    built.count++;
    return actual(...args);
  };
});

/** The configuration mailparser gives its finder when it is imported (dist/esm/mail-parser.js). */
function configuredAsMailparserDoes(finder: Linkify): Linkify {
  return finder
    .tlds(tlds)
    .tlds('onion', true)
    .add('git:', 'http:')
    .add('ftp:', null)
    .set({ fuzzyIP: true, fuzzyLink: true, fuzzyEmail: true });
}

const text = 'Docs at https://example.com/a?b=c, mirror www.example.onion, mail me@example.org, git://example.net/r.git, ftp://example.com/x, 10.0.0.1/admin';

describe('linkify-it built on first use', () => {
  beforeEach(() => (built.count = 0));

  it('builds no finder while it is only configured, as mailparser does at import', () => {
    configuredAsMailparserDoes(linkifyOnFirstUse());
    expect(built.count).toBe(0);
  });

  it('finds the same links as linkify-it configured the same way, building one finder at the first question', () => {
    const stand = configuredAsMailparserDoes(linkifyOnFirstUse());
    const expected = configuredAsMailparserDoes(jest.requireActual(realLinkifyPath)()).match(text);
    built.count = 0;
    expect(expected?.map((link) => link.url)).toEqual(
      expect.arrayContaining(['https://example.com/a?b=c', 'http://www.example.onion', 'mailto:me@example.org', 'git://example.net/r.git']),
    );
    expect(stand.pretest(text)).toBe(true);
    expect(stand.match(text)).toEqual(expected);
    expect(stand.test('nothing here')).toBe(false);
    expect(built.count).toBe(1);
  });

  it('takes configuration after its first use on the finder it built', () => {
    const stand = linkifyOnFirstUse();
    expect(stand.test('see example.com')).toBe(true);
    stand.set({ fuzzyLink: false });
    expect(stand.test('see example.com')).toBe(false);
    expect(built.count).toBe(1);
  });
});
