import { dirname } from 'node:path';
import { flattenHtmlNesting, htmlNestingLimit } from '../../../lambdas/mail/flatten-html-nesting';
import { loadXssCorpus } from '../../support/xss-corpus';

/**
 * The parser sanitize-html itself runs (its own copy of htmlparser2), fed the flattened HTML: what
 * it builds is what costs time, so the depth and the text it reports are the ones that matter.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Parser } = require(require.resolve('htmlparser2', { paths: [dirname(require.resolve('sanitize-html'))] })) as {
  Parser: new (callbacks: Record<string, (...args: never[]) => void>) => { write(html: string): void; end(): void };
};

/** The deepest the parser's stack of open elements grows, the start tags it reads, and all its text. */
function asParsed(html: string): { depth: number; startTags: number; text: string } {
  let depth = 0;
  let deepest = 0;
  let startTags = 0;
  const text: string[] = [];
  const parser = new Parser({
    onopentagname: () => {
      startTags += 1;
      depth += 1;
      deepest = Math.max(deepest, depth);
    },
    onclosetag: () => {
      depth -= 1;
    },
    ontext: (data: string) => {
      text.push(data);
    },
  });
  parser.write(html);
  parser.end();
  return { depth: deepest, startTags, text: text.join('') };
}

/** A generator of hostile markup: fragments that open, close, hide or fake tags, in a seeded order. */
function fuzzed(seed: number, pieces: number): string {
  const fragments = [
    '<div>', '</div>', '<p>', '</p>', '<td>', '<tr>', '<li>', '<b>', '</b>', '<i>', '</ i >', '<br>', '</br>', '<img src=x>',
    '<a href="x>y">', '</a>', "<span title='<div>'>", '<svg>', '<g/>', '</svg>', '<select>', '<option>', '<div/>', '<p/>',
    '<!--', '-->', '<!-->', '<![CDATA[', ']]>', '<!doctype html>', '<?pi <div>?>', '</ 1>', '</>', '<script>', '</script>',
    '</script >', '<style>', '</style>', '<title>', '</title>', '<textarea>', '</textarea/>', '<xmp>', '<script/>', '<',
    '>', '"', "'", '=', '/', ' ', 'text', '&amp;', '<DIV class=a>', '</DIV>', '<a =">">', '<b x=1/>', '<p\n>',
  ];
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  return Array.from({ length: pieces }, () => fragments[next() % fragments.length]).join('');
}

describe('flattenHtmlNesting', () => {
  it('drops the start and end tags nested beyond the limit and keeps every character of text', () => {
    expect(flattenHtmlNesting('<b><i><u>x</u></i></b>', 2)).toBe('<b><i>x</i></b>');
    expect(flattenHtmlNesting('<div><div><div>a<div>b</div>c</div>d</div>e</div>f', 2)).toBe('<div><div>abcd</div>e</div>f');
  });

  it('counts the way the parser builds: void elements open no level, and a new cell or paragraph closes the last one', () => {
    const sloppy = `<table>${'<tr><td>cell<td>cell'.repeat(2000)}</table><div>${'<p>para<br><img src=x>'.repeat(2000)}</div>`;
    expect(flattenHtmlNesting(sloppy, 4)).toBe(sloppy);
  });

  it('reads tags as the parser does: a quoted ">" stays inside its attribute, raw text and comments hold no tags', () => {
    const html = '<div title=">"><div><script><div><div></script><!-- <div><div> --><style>}</style>x</div></div>';
    expect(flattenHtmlNesting(html, 2)).toBe(html);
    expect(flattenHtmlNesting('<div title=">"><div><b>x</b></div></div>', 2)).toBe('<div title=">"><div>x</div></div>');
  });

  it('leaves markup within the limit as it is, byte for byte', () => {
    for (const { payload } of loadXssCorpus()) expect(flattenHtmlNesting(payload)).toBe(payload);
  });

  it('hands the parser 300,000 nested elements as no deeper than the limit: the work per tag is bounded', () => {
    const depth = 300_000;
    const html = `${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}`;
    // Unflattened, the parser's work would grow with the square of the depth (minutes here).
    expect(asParsed(flattenHtmlNesting(html))).toEqual({ depth: htmlNestingLimit, startTags: htmlNestingLimit, text: 'deep text' });
  });

  it('bounds the depth and keeps the text the parser reads, for every payload of the XSS corpus and 300 fuzzed documents', () => {
    const documents = [...loadXssCorpus().map(({ payload }) => payload), ...Array.from({ length: 300 }, (_, seed) => fuzzed(seed + 1, 400))];
    for (const html of documents) {
      const flattened = asParsed(flattenHtmlNesting(html, 3));
      // A raw-text element (script, style) is read as one more level that closes at once.
      expect(flattened.depth).toBeLessThanOrEqual(4);
      expect(flattened.text).toBe(asParsed(html).text);
    }
  });
});
