import { dirname } from 'node:path';

/**
 * The parser sanitize-html itself runs (its own copy of htmlparser2), fed the flattened HTML: what
 * it builds is what costs time, so the depth and the text it reports are the ones that matter.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Parser } = require(require.resolve('htmlparser2', { paths: [dirname(require.resolve('sanitize-html'))] })) as {
  Parser: new (callbacks: Record<string, (...args: never[]) => void>) => { write(html: string): void; end(): void };
};

/** The deepest the parser's stack of open elements grows, the start tags it reads, and all its text. */
export function asParsed(html: string): { depth: number; startTags: number; text: string } {
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
export function fuzzed(seed: number, pieces: number): string {
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
