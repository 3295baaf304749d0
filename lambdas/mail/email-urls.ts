/**
 * Which URLs a sanitized mail may keep (DESIGN, Inbound mail): every URL that survives is
 * absolute with an authority (`https://host/…`), judged as a browser parses it. A URL without
 * one (`https:/x`, `https:x`, `http:\x`, `/x`, `x`, `?x`) resolves against the page that shows
 * the mail, so a mail could make its reader's own site act on a cookie-bearing request.
 */

/**
 * Every attribute a browser reads as a URL or a list of URLs, on whatever element. Each one the
 * allowlist keeps passes `keepsUrl`; the others are dropped, so adding an element or an
 * attribute to the allowlist can never let an unjudged URL through.
 */
export const urlAttributes: ReadonlySet<string> = new Set([
  'href', 'src', 'srcset', 'imagesrcset', 'background', 'poster', 'cite', 'action', 'formaction', 'xlink:href', 'longdesc',
  'usemap', 'ping', 'lowsrc', 'dynsrc', 'data', 'codebase', 'archive', 'classid', 'manifest', 'profile', 'icon', 'itemtype',
]);

/**
 * A URL as the browser's URL parser takes it from an attribute (WHATWG URL: leading and trailing
 * C0 controls and spaces stripped, every tab and newline removed anywhere, the scheme in any case).
 */
function asParsed(value: string): string {
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
}

/**
 * True for an `http:` or `https:` URL that names its host whatever page it is on: two slashes
 * (or backslashes, which a browser reads as slashes in these schemes) after the scheme, and a
 * host Node's WHATWG URL parser, the standard browsers follow, accepts. Without the two slashes
 * a browser resolves `https:/x` against a page of the same scheme, as a path of that page's site.
 */
export function isAbsoluteWebUrl(value: string): boolean {
  const url = asParsed(value);
  if (!/^https?:[\\/]{2}/i.test(url)) return false;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

const scheme = (value: string) => asParsed(value).toLowerCase();
/** A `data:` URL as a browser reads the attribute (any case, spaces and newlines around or inside the scheme). */
export const isDataUrl = (value: string): boolean => scheme(value).startsWith('data:');
const isMailto = (value: string) => scheme(value).startsWith('mailto:');
const isCid = (value: string) => scheme(value).startsWith('cid:');
/** Raster images only: `data:image/svg+xml` can carry script. */
const isRasterData = (value: string) => /^data:image\/(?:png|gif|jpeg|webp)[;,]/.test(scheme(value));

/** The URLs each element may keep, by attribute; every other URL attribute of `urlAttributes` is dropped. */
const keptUrls: Readonly<Record<string, Readonly<Record<string, (value: string) => boolean>>>> = {
  a: { href: (value) => isAbsoluteWebUrl(value) || isMailto(value) },
  img: { src: (value) => isAbsoluteWebUrl(value) || isCid(value) || isRasterData(value) },
};

/**
 * Whether `tag`'s `attribute` may keep `value`: attributes that hold no URL always may; a URL
 * attribute only when the element may have one and the URL passes its rule.
 *
 * @example keepsUrl('img', 'src', 'https:/account/delete') // false
 * @example keepsUrl('a', 'href', 'https://shop.example/order/1') // true
 */
export function keepsUrl(tag: string, attribute: string, value: string): boolean {
  const name = attribute.toLowerCase();
  if (!urlAttributes.has(name)) return true;
  return keptUrls[tag]?.[name]?.(value) ?? false;
}
