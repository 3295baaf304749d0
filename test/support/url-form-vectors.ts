/**
 * URLs that a browser resolves against the page showing the mail, so that the page's own site
 * would get the request with its reader's cookies: `http:`/`https:` without an authority in
 * every spelling a browser accepts (any case, tabs and newlines inside the scheme, backslashes,
 * entity-encoded characters, leading controls), relative paths, bare queries and fragments.
 * Each form is written as it appears in the attribute's HTML source, for the path `p`.
 */
export const sameOriginUrlForms: readonly [string, (p: string) => string][] = [
  ['https:/path', (p) => `https:/${p}`],
  ['https:path', (p) => `https:${p}`],
  ['http:/path', (p) => `http:/${p}`],
  ['http:path', (p) => `http:${p}`],
  ['http:\\path', (p) => `http:\\${p}`],
  ['https:\\path', (p) => `https:\\${p}`],
  ['http:&#92;path (entity backslash)', (p) => `http:&#92;${p}`],
  ['HTTPS:/path', (p) => `HTTPS:/${p}`],
  ['HtTp:/path', (p) => `HtTp:/${p}`],
  ['tab inside the scheme', (p) => `ht\ttps:/${p}`],
  ['newline inside the scheme', (p) => `htt\nps:/${p}`],
  ['entity tab inside the scheme', (p) => `ht&#9;tp:/${p}`],
  ['entity newline inside the scheme', (p) => `htt&NewLine;p:/${p}`],
  ['&colon; for the colon', (p) => `https&colon;/${p}`],
  ['&#58; for the colon', (p) => `http&#58;/${p}`],
  ['&#x3A; for the colon', (p) => `https&#x3A;/${p}`],
  ['entity letters in the scheme', (p) => `&#104;ttp:/${p}`],
  ['leading control and space', (p) => `&#1; http:/${p}`],
  ['encoded slash', (p) => `http:%2F${p}`],
  ['scheme and query only', (p) => `http:?${p}`],
  ['scheme and fragment only', (p) => `https:#${p}`],
  ['path-absolute', (p) => `/${p}`],
  ['path-relative', (p) => p],
  ['dot segment', (p) => `./${p}`],
  ['dot-dot segment', (p) => `../${p}`],
  ['bare query', (p) => `?${p}`],
  ['bare fragment', (p) => `#${p}`],
];

/**
 * Every place HTML or CSS takes a URL, each filled with a URL: links and areas, images and
 * their source sets, media, table backgrounds, quotations, forms and their buttons, frames and
 * objects, SVG links, stylesheets, a refresh, pings, and CSS `url()` in inline styles and in a
 * style element.
 */
export const urlPlaces: readonly [string, (url: string) => string][] = [
  ['a href', (u) => `<a href="${u}" target="_blank">link</a>`],
  ['area href', (u) => `<map name="m"><area href="${u}" shape="rect" coords="0,0,40,40"></map>`],
  ['img src', (u) => `<img src="${u}" alt="i" width="4" height="4">`],
  ['img srcset', (u) => `<img srcset="${u} 1x" alt="i">`],
  ['picture source srcset', (u) => `<picture><source srcset="${u}"><img alt="p"></picture>`],
  ['input type=image', (u) => `<input type="image" src="${u}" alt="i">`],
  ['table and cell background', (u) => `<table background="${u}"><tr><td background="${u}">t</td></tr></table>`],
  ['video poster and src', (u) => `<video poster="${u}" src="${u}"></video><audio src="${u}"></audio>`],
  ['quotation cite', (u) => `<blockquote cite="${u}">q</blockquote><q cite="${u}">q</q><del cite="${u}">d</del><ins cite="${u}">i</ins>`],
  ['form action', (u) => `<form action="${u}" method="post"><button>send</button></form>`],
  ['button formaction', (u) => `<form><button formaction="${u}">send</button></form>`],
  ['iframe, embed and object', (u) => `<iframe src="${u}"></iframe><embed src="${u}"><object data="${u}"></object>`],
  ['svg links', (u) => `<svg><a xlink:href="${u}"><text y="10">s</text></a><image href="${u}" width="4" height="4"/></svg>`],
  ['link stylesheet', (u) => `<link rel="stylesheet" href="${u}">`],
  ['meta refresh', (u) => `<meta http-equiv="refresh" content="0;url=${u}">`],
  ['a ping', (u) => `<a href="#ping" ping="${u}">ping</a>`],
  ['img lowsrc and longdesc', (u) => `<img lowsrc="${u}" longdesc="${u}" alt="i">`],
  ['style background-image url()', (u) => `<div style="background-image:url(${u});width:4px;height:4px">x</div>`],
  ['style background url() quoted', (u) => `<div style="background:url('${u}')">x</div>`],
  ['style list-style-image and cursor', (u) => `<ul style="list-style-image:url(${u})"><li style="cursor:url(${u}),auto">x</li></ul>`],
  ['style border-image and content', (u) => `<p style="border:4px solid;border-image:url(${u}) 30">x</p><span style="content:url(${u})">x</span>`],
  ['style element', (u) => `<style>@import url(${u}); p { background: url(${u}) }</style><p>x</p>`],
];

/** The path a form in a place points at on the page's site, naming both: `leak/<place>-<form>`. */
export function leakPath(place: string, form: string): string {
  return `/leak/${urlPlaces.findIndex(([name]) => name === place)}-${sameOriginUrlForms.findIndex(([name]) => name === form)}`;
}

/** The HTML of one place holding the given forms (all of them unless told), each pointing at its own `leakPath`. */
export function formsIn(place: string, forms: readonly string[] = sameOriginUrlForms.map(([name]) => name)): string {
  const inPlace = urlPlaces.find(([name]) => name === place)![1];
  return forms.map((form) => inPlace(sameOriginUrlForms.find(([name]) => name === form)![1](leakPath(place, form).slice(1)))).join('\n');
}

/** One vector per place holding every form, so that a request reaching the page's site names what leaked. */
export const sameOriginUrlVectors: [string, string][] = urlPlaces.map(([place]) => [`same-origin URL forms in ${place}`, formsIn(place)]);
