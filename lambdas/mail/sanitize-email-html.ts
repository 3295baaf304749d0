import { createHash } from 'node:crypto';
import sanitizeHtml from 'sanitize-html';
import { keepsUrl } from './email-urls';
import { flattenHtmlNesting } from './flatten-html-nesting';

/**
 * Text, table and image elements that mail layouts use; anything else loses its tag but keeps its
 * text. Deliberately absent (DESIGN, Inbound mail): `svg`, `math`, `select` and `style`, because
 * sanitize-html's parser reads `<style>` as raw text in every namespace while a browser does not,
 * so `<math>…<style><img src=x onerror=…>` would come back to life. Also absent: every element a
 * browser parses as raw text (`textarea`, `title`, `xmp`, `noscript`, `iframe`, `noembed`,
 * `noframes`, `plaintext`), so the output is tokenized by a browser exactly as it was written.
 */
const allowedTags = [
  'a', 'abbr', 'address', 'article', 'aside', 'b', 'bdi', 'bdo', 'big', 'blockquote', 'br',
  'caption', 'center', 'cite', 'code', 'col', 'colgroup', 'dd', 'del', 'dfn', 'div', 'dl', 'dt',
  'em', 'figcaption', 'figure', 'font', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',
  'hr', 'i', 'img', 'ins', 'kbd', 'li', 'main', 'mark', 'nav', 'ol', 'p', 'pre', 'q', 's', 'samp',
  'section', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'time', 'tr', 'tt', 'u', 'ul', 'var', 'wbr',
];

/**
 * Elements whose content is dropped with them: raw-text and template-like elements, and the
 * foreign (`svg`, `math`) and `select` subtrees where parsers disagree most.
 */
const nonTextTags = [
  'script', 'style', 'textarea', 'option', 'xmp', 'noscript', 'title', 'iframe', 'object',
  'applet', 'template', 'noembed', 'noframes', 'plaintext', 'select', 'svg', 'math', 'frameset',
];

const cellLayout = ['width', 'height', 'align', 'valign', 'bgcolor', 'colspan', 'rowspan', 'nowrap'];

/**
 * `id` (and `a[name]`, the old anchor) only under the message's prefix (see `withPrefixedIds`),
 * and dropped when no prefix is given. No `class`: classes reach the host page's CSS.
 * No URL-bearing attribute other than `a[href]` and `img[src]` (no `background`, `srcset`, `cite`).
 */
const allowedAttributes: Record<string, string[]> = {
  '*': ['style', 'title', 'dir', 'lang', 'id'],
  a: ['href', 'rel', 'target', 'name'],
  img: ['src', 'alt', 'width', 'height', 'align', 'border', 'hspace', 'vspace'],
  table: ['width', 'height', 'align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'summary'],
  tr: ['height', 'align', 'valign', 'bgcolor'],
  td: cellLayout,
  th: [...cellLayout, 'scope'],
  thead: ['align', 'valign'],
  tbody: ['align', 'valign'],
  tfoot: ['align', 'valign'],
  col: ['span', 'width', 'align', 'valign'],
  colgroup: ['span', 'width', 'align', 'valign'],
  font: ['color', 'face', 'size'],
  div: ['align'],
  p: ['align'],
  h1: ['align'], h2: ['align'], h3: ['align'], h4: ['align'], h5: ['align'], h6: ['align'],
  hr: ['width', 'size', 'align', 'noshade'],
  ol: ['start', 'type'],
  ul: ['type'],
  li: ['value'],
  time: ['datetime'],
};

/**
 * Numbers without a sign and lengths without viewport units: nothing in a mail can pull its
 * boxes above or before its container (negative margins, letter-spacing) or size them by the
 * window rather than by the container (`vw`, `vh`), so it cannot lay a link over the host page.
 */
const number = String.raw`(?:\d+(?:\.\d+)?|\.\d+)`;
const length = String.raw`(?:${number}(?:px|pt|pc|em|rem|ex|ch|%|cm|mm|in)?|auto)`;
/**
 * Opaque colours only: three or six hex digits, a name other than `transparent`, or `rgb()`/`hsl()`
 * of three components (no alpha), so a link's text is never invisible.
 */
const component = String.raw`\s*\d+(?:\.\d+)?%?\s*`;
const color = String.raw`(?:#[0-9a-f]{3}|#[0-9a-f]{6}|(?!transparent$)[a-z]+|(?:rgba?|hsla?)\(${component},${component},${component}\))`;
/** A background or border may be see-through (the default), text may not. */
const backgroundColor = String.raw`(?:${color}|transparent)`;
/**
 * Font sizes in absolute units up to 48 px (36 pt, 3 rem of the host's root size) or a size
 * keyword: sizes relative to the parent (`em`, `%`, `larger`) compound when nested, and a glyph
 * reaches above its line by about half its size, so a bounded size bounds how far text can
 * reach above the mail's first line.
 */
const fontSize = String.raw`(?:(?:[0-3]?\d|4[0-8])(?:\.\d+)?px|(?:[0-2]?\d|3[0-6])(?:\.\d+)?pt|[0-2](?:\.\d+)?rem|3rem|xx-small|x-small|small|medium|large|x-large|xx-large)`;
const borderStyle = 'none|hidden|dotted|dashed|solid|double|groove|ridge|inset|outset';

/** One to `max` space-separated tokens, each matching `token`; nothing else (no `(`, `\`, `:`). */
function tokens(token: string, max = 4): RegExp[] {
  return [new RegExp(`^(?:${token})(?: +(?:${token})){0,${max - 1}}$`, 'i')];
}

function oneOf(...words: string[]): RegExp[] {
  return [new RegExp(`^(?:${words.join('|')})$`, 'i')];
}

const lengths = tokens(length);
const colors = tokens(color, 1);
const backgroundColors = tokens(backgroundColor, 1);
const border = tokens(`${length}|${borderStyle}|${backgroundColor}`, 3);

/**
 * Style properties kept, each with the only values allowed: colors, lengths, font names and
 * keywords. None of the patterns admits `(` except the color functions over digits, so `url(`,
 * `expression(`, `image-set(`, CSS escapes and `javascript:` never pass; `behavior`,
 * `-moz-binding`, `position` and `z-index` are not listed at all.
 */
const allowedStyles: Record<string, RegExp[]> = {
  color: colors,
  'background-color': backgroundColors,
  background: backgroundColors,
  'font-family': [/^[\w ,"'-]+$/],
  'font-size': [new RegExp(`^${fontSize}$`, 'i')],
  'font-weight': oneOf('normal', 'bold', 'bolder', 'lighter', '[1-9]00'),
  'font-style': oneOf('normal', 'italic', 'oblique'),
  'line-height': [new RegExp(`^(?:normal|${number}|${length})$`, 'i')],
  'letter-spacing': tokens(length, 1),
  'text-align': oneOf('left', 'right', 'center', 'justify', 'start', 'end'),
  'text-decoration': tokens('none|underline|overline|line-through', 3),
  'text-transform': oneOf('none', 'uppercase', 'lowercase', 'capitalize'),
  // Keywords only: a length or percentage raises a box above its line, over what comes before.
  'vertical-align': oneOf('baseline', 'top', 'middle', 'bottom', 'text-top', 'text-bottom', 'sub', 'super'),
  'white-space': oneOf('normal', 'nowrap', 'pre', 'pre-wrap', 'pre-line'),
  'word-break': oneOf('normal', 'break-all', 'keep-all', 'break-word'),
  'overflow-wrap': oneOf('normal', 'break-word', 'anywhere'),
  'word-wrap': oneOf('normal', 'break-word'),
  display: oneOf('none', 'block', 'inline', 'inline-block', 'table', 'table-row', 'table-cell', 'list-item'),
  'table-layout': oneOf('auto', 'fixed'),
  'border-collapse': oneOf('collapse', 'separate'),
  'border-spacing': tokens(length, 2),
  ...Object.fromEntries(
    ['width', 'height', 'min-width', 'max-width', 'min-height', 'max-height'].map((p) => [p, tokens(`${length}|none`, 1)]),
  ),
  ...Object.fromEntries(
    ['padding', 'margin', 'border-width', 'border-radius'].flatMap((p) =>
      [p, `${p}-top`, `${p}-right`, `${p}-bottom`, `${p}-left`].map((q) => [q, lengths]),
    ),
  ),
  ...Object.fromEntries(['border', 'border-top', 'border-right', 'border-bottom', 'border-left'].map((p) => [p, border])),
  'border-style': tokens(borderStyle),
  'border-color': tokens(backgroundColor),
};

/** A fragment link inside the mail: `#` and at least one character that cannot end the attribute or the URL. */
const inPageHref = /^#[^\s"'<>`#]+$/;

/**
 * Only absolute http(s) links with an authority, mailto links, in-page `#` links (rewritten to
 * the message's prefixed ids) and http(s)/cid/raster-data images keep their URL (`email-urls.ts`):
 * a URL without an authority would resolve against the page showing the mail, and
 * `data:image/svg+xml` can carry script. Every other element loses every URL. An outside link
 * opens a new tab without a way back; an in-page link stays in the page. sanitize-html's own
 * scheme check (`allowedSchemesByTag`) runs after this, as a second guard.
 */
function transformTags(idPrefix: string | undefined): Record<string, sanitizeHtml.Transformer> {
  return {
    a: (tagName, { rel: _rel, target: _target, ...attribs }) => {
      const href = attribs.href ?? '';
      if (idPrefix && inPageHref.test(href.trim())) {
        const fragment = href.trim().slice(1);
        const prefixed = fragment.startsWith(idPrefix) ? fragment : `${idPrefix}${fragment}`;
        return { tagName, attribs: { ...withPrefixedIds(attribs, idPrefix), href: `#${prefixed}` } };
      }
      return {
        tagName,
        attribs: {
          ...withPrefixedIds(withSafeUrls(tagName, attribs), idPrefix),
          rel: 'noopener noreferrer nofollow',
          target: '_blank',
        },
      };
    },
    // Runs after the transform of the tag's own (sanitize-html applies both): `a` has judged its URLs already.
    '*': (tagName, attribs) => ({ tagName, attribs: withPrefixedIds(tagName === 'a' ? attribs : withSafeUrls(tagName, attribs), idPrefix) }),
  };
}

/**
 * `id` and `name` moved under the message's prefix, so that they can neither clobber the host
 * page's DOM (`window.x`, `document.x`, `form.x` need a name that is an identifier; a prefixed
 * one holds a `-`) nor collide with the page's or another message's ids. Without a prefix both
 * are dropped. A value already under the prefix is kept, so sanitizing again changes nothing.
 */
function withPrefixedIds(attribs: sanitizeHtml.Attributes, idPrefix: string | undefined): sanitizeHtml.Attributes {
  const { id, name, ...rest } = attribs;
  if (!idPrefix) return rest;
  const prefixed = (value: string | undefined) => {
    const clean = (value ?? '').trim();
    if (!/^[^\s"'<>`]+$/.test(clean)) return undefined;
    return clean.startsWith(idPrefix) ? clean : `${idPrefix}${clean}`;
  };
  return {
    ...rest,
    ...(prefixed(id) ? { id: prefixed(id)! } : {}),
    ...(prefixed(name) ? { name: prefixed(name)! } : {}),
  };
}

/** The attributes in their order, without any URL the element may not keep (`email-urls.ts`). */
function withSafeUrls(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  return Object.fromEntries(Object.entries(attribs).filter(([key, value]) => keepsUrl(tagName, key, value)));
}

const baseOptions: sanitizeHtml.IOptions = {
  allowedTags,
  allowedAttributes,
  allowedStyles: { '*': allowedStyles },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { a: ['http', 'https', 'mailto'], img: ['http', 'https', 'cid', 'data'] },
  allowProtocolRelative: false,
  nonTextTags,
  disallowedTagsMode: 'discard',
};

const withoutIds = { ...baseOptions, transformTags: transformTags(undefined) };

/**
 * Makes a received mail's HTML safe to show (DESIGN, Inbound mail: "HTML through sanitize-html
 * with an allowlist"): no script, event handler, form, frame, object, `javascript:` or non-image
 * `data:` URL, nor CSS beyond plain colors, lengths and fonts; outside links open in a new tab
 * with `rel="noopener noreferrer nofollow"`. Tables, images (`cid:` included) and links keep
 * their layout. With `idPrefix`, ids, anchor names and in-page `#` links are kept under it.
 *
 * @example sanitizeEmailHtml('<p onclick="x()">Hi <script>x()</script></p>') // '<p>Hi </p>'
 * @example sanitizeEmailHtml('<a href="#top">up</a>', { idPrefix: 'm-1a2b-' }) // '<a href="#m-1a2b-top">up</a>'
 */
export function sanitizeEmailHtml(html: string, options: { idPrefix?: string } = {}): string {
  // Bounded nesting first: sanitize-html's parser does work quadratic in the depth.
  return sanitizeHtml(flattenHtmlNesting(html), options.idPrefix ? { ...baseOptions, transformTags: transformTags(options.idPrefix) } : withoutIds);
}

/**
 * The id prefix of one received mail: `m-`, ten hex characters of its id's hash, `-`. Distinct
 * per mail, so two messages shown on one page keep apart, and never an identifier.
 */
export function idPrefixFor(mailId: string): string {
  return `m-${createHash('sha256').update(mailId, 'utf8').digest('hex').slice(0, 10)}-`;
}
