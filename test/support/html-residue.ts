import { parse, parseFragment, serialize, type DefaultTreeAdapterMap } from 'parse5';
import { sanitizeEmailHtml } from '../../lambdas/mail/sanitize-email-html';

type Node = DefaultTreeAdapterMap['childNode'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];
type Element = DefaultTreeAdapterMap['element'];

/**
 * HTML is read with parse5, which follows the HTML standard's tree construction as browsers do
 * (foreign content, raw-text elements, adoption agency), so the checker sees the tree a client's
 * browser would build from the sanitized HTML, not the sanitizer's own view of it.
 */
function parseAsBrowser(html: string): ParentNode {
  const page = parse('<!doctype html><html><body><div></div></body></html>');
  const html_ = page.childNodes.find((node) => node.nodeName === 'html') as Element;
  const body = html_.childNodes.find((node) => node.nodeName === 'body') as Element;
  const container = body.childNodes[0] as Element;
  return parseFragment(container, html, {});
}

/** Elements that run script, load other documents, submit data or change how the rest is parsed. */
const forbiddenElements = new Set([
  'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button',
  'textarea', 'select', 'option', 'base', 'link', 'meta', 'style', 'svg', 'math', 'template',
  'noscript', 'portal', 'xmp', 'plaintext', 'noembed', 'noframes', 'isindex', 'marquee',
]);

/** Attributes dangerous whatever their value (event handlers are matched by their `on` prefix). */
const forbiddenAttributes = new Set(['srcdoc', 'formaction', 'action', 'xlink:href', 'background', 'dynsrc', 'lowsrc']);

const urlAttributes = new Set([
  'href', 'src', 'srcset', 'action', 'formaction', 'poster', 'cite', 'longdesc', 'usemap', 'background', 'ping', 'data', 'lowsrc', 'dynsrc',
]);

const scriptSchemes = ['javascript:', 'vbscript:', 'livescript:'];
const rasterDataUrl = /^data:image\/(?:png|gif|jpeg|webp)[;,]/;
const cssHazards = ['expression(', 'url(', 'behavior', '-moz-binding', 'javascript:', '@import'];

/** A URL as a browser reads its scheme: C0 controls, spaces and DEL dropped, case folded. */
function urlStart(value: string): string {
  return value.replace(/[\u0000-\u0020\u007f]+/g, '').toLowerCase();
}

/** Pages of two sites in both schemes: a URL that resolves the same on all of them names its own site. */
const pageBases = ['https://a.example/p/q', 'https://b.example/r/', 'http://a.example/p/q', 'http://b.example/r/'];

/**
 * True when the URL resolves against the page showing it (WHATWG URL, as a browser does, with
 * its stripping of controls and tabs, backslashes and case): `https:/x` on an https page is a
 * path of that page's site, `?x` and `#x` are that page itself.
 */
function resolvesAgainstPage(value: string): boolean {
  const resolved = new Set(
    pageBases.map((base) => {
      try {
        return new URL(value, base).href;
      } catch {
        return 'unparsable';
      }
    }),
  );
  return resolved.size > 1;
}

function urlProblem(name: string, value: string): string | undefined {
  const url = urlStart(value);
  const scheme = scriptSchemes.find((s) => url.startsWith(s));
  if (scheme) return `${scheme} URL`;
  if (url.startsWith('data:') && !rasterDataUrl.test(url)) return 'non-image data: URL';
  // An in-page link is a fragment of the page by design; anything else that resolves against the page is a request to its own site.
  if (resolvesAgainstPage(value) && !(name === 'href' && url.startsWith('#'))) return 'URL without an authority (resolves against the page)';
  return undefined;
}

/** CSS as the browser's tokenizer sees it: comments gone, `\65`-style escapes decoded, no spaces. */
function cssText(style: string): string {
  return style
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '')
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) => String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd))
    .replace(/\\(.)/g, '$1')
    .replace(/\s+/g, '')
    .toLowerCase();
}

function attributeProblems(element: Element): string[] {
  const where = `<${element.tagName}>`;
  return element.attrs.flatMap(({ name: attribute, prefix, value }) => {
    const name = prefix ? `${prefix}:${attribute}` : attribute;
    const problems: string[] = [];
    if (name.startsWith('on')) problems.push(`event handler ${name} on ${where}`);
    if (forbiddenAttributes.has(name)) problems.push(`attribute ${name} on ${where}`);
    // A name that is an identifier reaches `window.x`, `document.x` or `form.x`: DOM clobbering.
    if ((name === 'id' || name === 'name') && /^[A-Za-z_$][\w$]*$/.test(value)) problems.push(`clobbering ${name}="${value}" on ${where}`);
    const url = urlAttributes.has(name) ? urlProblem(name, value) : undefined;
    if (url) problems.push(`${url} in ${where} ${name}="${value}"`);
    if (name === 'style') {
      const css = cssText(value);
      for (const hazard of cssHazards.filter((h) => css.includes(h))) problems.push(`CSS ${hazard} in ${where} style="${value}"`);
    }
    return problems;
  });
}

function elementsOf(parent: ParentNode): Element[] {
  const found: Element[] = [];
  const visit = (nodes: Node[]) => {
    for (const node of nodes) {
      if (!('tagName' in node)) continue;
      found.push(node);
      visit(node.childNodes);
      // A <template>'s children live in its content fragment.
      if ('content' in node && node.content) visit((node.content as ParentNode).childNodes as Node[]);
    }
  };
  visit(parent.childNodes as Node[]);
  return found;
}

/**
 * Problems left in HTML that should be safe to render, in words fit for a failure message; `[]`
 * when there are none. Beyond the element, attribute, URL and CSS rules above, two stability
 * probes: the parsed tree, serialized and parsed again, must hold the same elements (no mutation
 * on a round trip), and sanitizing the HTML again (with the same id prefix) must not change it
 * (the sanitizer is idempotent on its own output).
 */
export function dangerousResidue(html: string, options: { idPrefix?: string } = {}): string[] {
  const fragment = parseAsBrowser(html);
  const elements = elementsOf(fragment);
  const problems = elements.flatMap((element) => [
    ...(forbiddenElements.has(element.tagName) ? [`element <${element.tagName}>`] : []),
    ...attributeProblems(element),
  ]);
  const names = elements.map((e) => e.tagName).join(' ');
  const reparsedNames = elementsOf(parseAsBrowser(serialize(fragment)))
    .map((e) => e.tagName)
    .join(' ');
  if (reparsedNames !== names) problems.push(`elements change on re-parsing: [${names}] became [${reparsedNames}]`);
  const again = sanitizeEmailHtml(html, options);
  if (again !== html) problems.push(`sanitizing again changes the HTML: ${JSON.stringify(html)} became ${JSON.stringify(again)}`);
  return problems;
}
