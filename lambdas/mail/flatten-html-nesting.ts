/**
 * How deep received HTML may nest before its excess tags are dropped: Chromium's own parser
 * stops nesting at 512 levels (deeper elements become siblings), so no mail looks different in
 * a browser for it, while real layouts stay far below (a few dozen levels).
 */
export const htmlNestingLimit = 512;

/**
 * What htmlparser2 (the parser of sanitize-html and html-to-text, 10.x) does with a start tag in
 * HTML mode, copied so that the depth counted here is the depth it builds: void elements never
 * open a level, and some start tags close the open elements named here first (`<p>` after `<p>`,
 * `<td>` after `<td>`), so sloppy markup with thousands of unclosed cells is not deep.
 */
const voidElements = new Set([
  'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'image', 'img', 'input',
  'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]);
const paragraph = ['p'];
const form = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const openImpliesClose = new Map<string, ReadonlySet<string>>(
  Object.entries({
    tr: ['tr', 'th', 'td'], th: ['th'], td: ['thead', 'th', 'td'], body: ['head', 'link', 'script'], li: ['li'],
    p: paragraph, h1: paragraph, h2: paragraph, h3: paragraph, h4: paragraph, h5: paragraph, h6: paragraph,
    select: form, input: form, output: form, button: form, datalist: form, textarea: form,
    option: ['option'], optgroup: ['optgroup', 'option'], dd: ['dd', 'dt'], dt: ['dd', 'dt'],
    ...Object.fromEntries(
      ['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer',
        'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((name) => [name, paragraph]),
    ),
    rt: ['rt', 'rp'], rp: ['rt', 'rp'], tbody: ['thead', 'tbody'], tfoot: ['thead', 'tbody'],
  }).map(([name, closed]) => [name, new Set(closed)]),
);
/** Elements whose content the tokenizer reads as raw text up to their end tag. */
const rawTextElements = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
const rawTextEnds = new Map([...rawTextElements].map((name) => [name, new RegExp(`</${name}[\\t\\n\\f\\r >]`, 'gi')]));

const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0c || code === 0x0d;
const isAsciiAlpha = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
/** Where a tag name or an unquoted attribute part ends (`/` too, except in an end tag's name). */
const endsTagSection = (code: number) => isWhitespace(code) || code === 0x2f || code === 0x3e;

/**
 * `html` with every start tag that would open a level beyond `maxDepth` dropped, together with
 * its matching end tag; their text and everything else is kept byte for byte. One pass, linear
 * in the length: htmlparser2 keeps its open elements at the front of an array, so its work grows
 * with the square of the depth (100,000 nested `<div>`s took tens of seconds to sanitize), and
 * html-to-text's recursive walk overflows the call stack near 2,000 levels. With the depth bounded
 * first, both do work linear in the size of the mail. Tags, comments and raw text are found the
 * way htmlparser2's tokenizer finds them; the output is still sanitized after this, so this pass
 * bounds work and never decides what is safe.
 *
 * @example flattenHtmlNesting('<b><i><u>x</u></i></b>', 2) // '<b><i>x</i></b>'
 */
export function flattenHtmlNesting(html: string, maxDepth = htmlNestingLimit): string {
  const open: string[] = [];
  /** How many of each element are open (kept) and how many start tags were dropped, by name. */
  const openCount = new Map<string, number>();
  const dropped = new Map<string, number>();
  /** Kept ranges of `html`, as start and end indexes one after the other. */
  const cuts: number[] = [];
  const drop = (start: number, end: number) => cuts.push(start, end);
  const pop = () => {
    const name = open.pop()!;
    openCount.set(name, openCount.get(name)! - 1);
  };

  const length = html.length;
  let at = html.indexOf('<');
  while (at >= 0 && at < length - 1) {
    const next = html.charCodeAt(at + 1);
    if (next === 0x21 /* ! */) {
      at = skipDeclaration(html, at);
    } else if (next === 0x3f /* ? */) {
      at = after(html, '>', at + 2);
    } else if (next === 0x2f /* / */) {
      const tag = readEndTag(html, at);
      if (tag.name !== undefined && !voidElements.has(tag.name)) {
        const droppedOfName = dropped.get(tag.name) ?? 0;
        if (droppedOfName > 0) {
          dropped.set(tag.name, droppedOfName - 1);
          drop(at, tag.end);
        } else if ((openCount.get(tag.name) ?? 0) > 0) {
          while (open[open.length - 1] !== tag.name) pop();
          pop();
        }
      }
      at = tag.end;
    } else if (isAsciiAlpha(next)) {
      const tag = readStartTag(html, at);
      if (tag.end < 0) break;
      if (!voidElements.has(tag.name) && !tag.rawText) {
        // A start tag that closes the innermost open element first (`<p>` after `<p>`) stays at
        // its depth: only one that would nest deeper than `maxDepth` is dropped.
        const closes = openImpliesClose.get(tag.name);
        const closesInnermost = closes !== undefined && open.length > 0 && closes.has(open[open.length - 1]!);
        if (open.length >= maxDepth && !closesInnermost) {
          dropped.set(tag.name, (dropped.get(tag.name) ?? 0) + 1);
          drop(at, tag.end);
        } else {
          while (closes && open.length > 0 && closes.has(open[open.length - 1]!)) pop();
          open.push(tag.name);
          openCount.set(tag.name, (openCount.get(tag.name) ?? 0) + 1);
        }
      }
      at = tag.rawText ? skipRawText(html, tag.end, tag.name) : tag.end;
    } else {
      at += 1;
    }
    if (at < 0) break;
    at = html.indexOf('<', at);
  }
  if (cuts.length === 0) return html;
  const kept: string[] = [];
  let from = 0;
  for (let index = 0; index < cuts.length; index += 2) {
    kept.push(html.slice(from, cuts[index]));
    from = cuts[index + 1]!;
  }
  kept.push(html.slice(from));
  return kept.join('');
}

/** The index after the first `needle` at or after `from`, or -1 when the text ends first. */
function after(html: string, needle: string, from: number): number {
  const found = html.indexOf(needle, from);
  return found < 0 ? -1 : found + needle.length;
}

/** After `<!`: a comment ends at `-->` (`<!-->` included), CDATA at `]]>`, a declaration at `>`. */
function skipDeclaration(html: string, at: number): number {
  if (html.startsWith('<!--', at)) return after(html, '-->', at + 2);
  if (html.startsWith('<![CDATA[', at)) return after(html, ']]>', at + 9);
  return after(html, '>', at + 2);
}

/**
 * An end tag at `at` (`</`): whitespace after `</` is skipped, the name ends at whitespace or
 * `>` and the tag at the next `>`. `</>` is nothing and `</` before anything but a letter is a
 * comment up to `>`, so neither has a name.
 */
function readEndTag(html: string, at: number): { name?: string; end: number } {
  let index = at + 2;
  while (index < html.length && isWhitespace(html.charCodeAt(index))) index += 1;
  if (index >= html.length || !isAsciiAlpha(html.charCodeAt(index))) return { end: after(html, '>', index) };
  const nameStart = index;
  while (index < html.length && html.charCodeAt(index) !== 0x3e && !isWhitespace(html.charCodeAt(index))) index += 1;
  const end = after(html, '>', index);
  return end < 0 ? { end } : { name: html.slice(nameStart, index).toLowerCase(), end };
}

/**
 * A start tag at `at` (`<` and a letter), read through its attributes (a quoted value may hold
 * `>`) to the `>` that ends it; `end` is -1 when the text ends first. `rawText` is set for a
 * raw-text element not written self-closing, whose content is no markup.
 */
function readStartTag(html: string, at: number): { name: string; end: number; rawText: boolean } {
  const length = html.length;
  let index = at + 1;
  while (index < length && !endsTagSection(html.charCodeAt(index))) index += 1;
  const name = html.slice(at + 1, index).toLowerCase();
  let selfClosing = false;
  while (index < length) {
    const code = html.charCodeAt(index);
    if (code === 0x3e) return { name, end: index + 1, rawText: rawTextElements.has(name) && !selfClosing };
    if (code === 0x2f) {
      selfClosing = true;
      index += 1;
      continue;
    }
    if (isWhitespace(code)) {
      index += 1;
      continue;
    }
    // An attribute: its name (whatever its first character, `=` and quotes included) runs to
    // `=`, whitespace, `/` or `>`.
    selfClosing = false;
    index += 1;
    while (index < length && html.charCodeAt(index) !== 0x3d && !endsTagSection(html.charCodeAt(index))) index += 1;
    let valueAt = index;
    while (valueAt < length && isWhitespace(html.charCodeAt(valueAt))) valueAt += 1;
    if (html.charCodeAt(valueAt) !== 0x3d) continue;
    index = valueAt + 1;
    while (index < length && isWhitespace(html.charCodeAt(index))) index += 1;
    const quote = html.charCodeAt(index);
    if (quote === 0x22 || quote === 0x27) {
      const close = html.indexOf(quote === 0x22 ? '"' : "'", index + 1);
      if (close < 0) return { name, end: -1, rawText: false };
      index = close + 1;
    } else {
      while (index < length && html.charCodeAt(index) !== 0x3e && !isWhitespace(html.charCodeAt(index))) index += 1;
    }
  }
  return { name, end: -1, rawText: false };
}

/**
 * The index of the end tag that closes raw text begun at `from`: `</name` in any case followed
 * by whitespace or `>`. Without one the rest of the text is raw: -1.
 */
function skipRawText(html: string, from: number, name: string): number {
  const pattern = rawTextEnds.get(name)!;
  pattern.lastIndex = from;
  const found = pattern.exec(html);
  return found ? found.index : -1;
}
