import { sanitizeEmailHtml } from '../../../lambdas/inbound/sanitize-email-html';
import { dangerousResidue } from '../../support/html-residue';

/** Elements named after DOM properties: harmless only if their `id` and `name` are gone too. */
const domClobbering: [name: string, html: string][] = [
  ['img named after a document method', '<img name="getElementById" src="https://x.example/a.png">'],
  ['form with id location', '<form id="location"><input name="href"></form>'],
  ['link with id defaultView', '<a id="defaultView" href="https://x.example/">x</a>'],
  ['form named body holding an img', '<form name="body"><img name="firstChild"></form>'],
];

/** Hostile HTML written for this suite, by class: each must come out with no dangerous residue. */
const vectors: [name: string, html: string][] = [
  // Script elements
  ['plain script', '<script>alert(1)</script>'],
  ['upper-case SCRIPT', '<SCRIPT>alert(1)</SCRIPT>'],
  ['mixed-case script with an external src', '<ScRiPt src="https://evil.example/x.js"></sCrIpT>'],
  ['script split around an inner script', '<scr<script>ipt>alert(1)</scr</script>ipt>'],
  ['unclosed script after text', '<p>hi<script>alert(1)'],
  ['module script', '<script type="module">import("https://evil.example/m.js")</script>'],
  ['script inside a table cell', '<table><tr><td><script>alert(1)</script></td></tr></table>'],
  ['script with a slash before its attribute', '<script/src="data:text/javascript,alert(1)"></script>'],
  // Event handlers
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['body onload', '<body onload="alert(1)">hi</body>'],
  ['svg onload', '<svg onload=alert(1)>'],
  ['details ontoggle', '<details open ontoggle=alert(1)><summary>x</summary></details>'],
  ['video onerror', '<video src=x onerror=alert(1)></video>'],
  ['audio onerror', '<audio src=x onerror=alert(1)>'],
  ['source onerror inside video', '<video><source onerror=alert(1)></video>'],
  ['marquee onstart', '<marquee onstart=alert(1)>hi</marquee>'],
  ['input autofocus onfocus', '<input autofocus onfocus=alert(1)>'],
  ['handler after a slash separator', "<div/onmouseover='alert(1)'>x</div>"],
  ['onclick on a link with a valid href', '<a href="https://example.com" onclick="alert(1)">x</a>'],
  ['onmouseenter on a table cell', '<table><tr><td onmouseenter=alert(1)>x</td></tr></table>'],
  ['upper-case handler sanitize-html does not list', '<p ONPOINTEROVER="alert(1)">x</p>'],
  ['handler after unquoted values', '<img src=https://x.example/a.png alt=x onerror=alert(1)>'],
  ['backtick-quoted handler', '<img src=x onerror=`alert(1)`>'],
  ['style element onload', '<style onload=alert(1)></style>'],
  // SVG and MathML
  ['script inside svg', '<svg><script>alert(1)</script></svg>'],
  ['svg animate turning href into javascript:', '<svg><a><animate attributeName="href" values="javascript:alert(1)"/><text y="20">go</text></a></svg>'],
  ['svg set on xlink:href', '<svg><a xlink:href="#"><set attributeName="xlink:href" to="javascript:alert(1)"/><text>go</text></a></svg>'],
  ['svg use of an svg data URL', '<svg><use href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=#x"/></svg>'],
  ['math maction with xlink:href', '<math><maction actiontype="toggle" xlink:href="javascript:alert(1)">x</maction></math>'],
  ['math element with href', '<math href="javascript:alert(1)"><mi>x</mi></math>'],
  ['mglyph style namespace mutation', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'],
  ['svg style hiding an img', '<svg><style><img src=x onerror=alert(1)></style></svg>'],
  ['foreignObject carrying an iframe', '<svg><foreignObject><iframe srcdoc="<script>alert(1)</script>"></iframe></foreignObject></svg>'],
  ['CDATA inside svg', '<svg><![CDATA[</svg><img src=x onerror=alert(1)>]]></svg>'],
  ['annotation-xml integration point', '<math><annotation-xml encoding="text/html"><style><img src=x onerror=alert(1)></style></annotation-xml></math>'],
  // CSS
  ['expression() in a style attribute', '<div style="width: expression(alert(1))">x</div>'],
  ['url(javascript:) in a style attribute', '<div style="background-image: url(javascript:alert(1))">x</div>'],
  ['behavior in a style attribute', '<div style="behavior: url(xss.htc)">x</div>'],
  ['-moz-binding in a style attribute', '<div style="-moz-binding: url(https://evil.example/x.xml#x)">x</div>'],
  ['@import inside a style element', '<style>@import url("https://evil.example/x.css");</style><p>x</p>'],
  ['CSS hex escape spelling javascript', '<div style="background:url(\\6a avascript:alert(1))">x</div>'],
  ['CSS escape inside expression', '<div style="width:e\\78 pression(alert(1))">x</div>'],
  ['comment splitting expression', '<div style="width:expr/**/ession(alert(1))">x</div>'],
  ['entity-encoded url( in a style attribute', '<div style="background:&#117;rl(javascript:alert(1))">x</div>'],
  ['stylesheet link', '<link rel="stylesheet" href="https://evil.example/x.css">'],
  // Encoded and disguised URLs
  ['decimal entity for the j', '<a href="&#106;avascript:alert(1)">x</a>'],
  ['hex entities for java', '<a href="&#x6A;&#x61;&#x76;&#x61;script:alert(1)">x</a>'],
  ['zero-padded entities without semicolons', '<a href="&#0000106&#0000097vascript:alert(1)">x</a>'],
  ['raw tab inside the scheme', '<a href="java\tscript:alert(1)">x</a>'],
  ['raw newline inside the scheme', '<a href="java\nscript:alert(1)">x</a>'],
  ['entity tab inside the scheme', '<a href="java&#x09;script:alert(1)">x</a>'],
  ['named entities &Tab; and &colon;', '<a href="java&Tab;script&colon;alert(1)">x</a>'],
  ['leading spaces and a control character', '<a href=" &#x20; \u0001javascript:alert(1)">x</a>'],
  ['mixed-case scheme', '<a href="JaVaScRiPt:alert(1)">x</a>'],
  ['vbscript link', '<a href="vbscript:msgbox(1)">x</a>'],
  ['livescript link', '<a href="livescript:alert(1)">x</a>'],
  ['base64 data:text/html link', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
  ['svg data URL in an img', `<img src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>">`],
  ['base64 svg data URL in an img', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'],
  ['javascript: img src', '<img src="javascript:alert(1)">'],
  ['javascript: area in an image map', '<map name="m"><area href="javascript:alert(1)"></map>'],
  ['javascript:// with an encoded newline', '<a href="javascript://%0aalert(1)">x</a>'],
  ['percent-encoded scheme', '<a href="%6A%61vascript:alert(1)">x</a>'],
  ['NUL entity before the scheme', '<a href="&#0;javascript:alert(1)">x</a>'],
  // Mutation XSS: raw-text breakouts, comments, namespaces
  ['noscript breakout', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>'],
  ['title breakout', '<title><img title="</title><img src=x onerror=alert(1)>"></title>'],
  ['textarea breakout', '<textarea><img title="</textarea><img src=x onerror=alert(1)>"></textarea>'],
  ['xmp breakout', '<xmp><p title="</xmp><img src=x onerror=alert(1)>"></xmp>'],
  ['iframe raw text breakout', '<iframe><p title="</iframe><img src=x onerror=alert(1)>"></iframe>'],
  ['noembed breakout', '<noembed><b title="</noembed><img src=x onerror=alert(1)>"></b></noembed>'],
  ['noframes breakout', '<noframes><b title="</noframes><img src=x onerror=alert(1)>"></b></noframes>'],
  ['select, template, style', '<select><template><style><img src=x onerror=alert(1)></style></template></select>'],
  ['abruptly closed comment', '<!--><img src=x onerror=alert(1)>-->'],
  ['comment closed by --!>', '<!-- --!><img src=x onerror=alert(1)> -->'],
  ['closing p inside an attribute', '<p title="</p><img src=x onerror=alert(1)>">x</p>'],
  ['form and math namespace confusion', '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>'],
  ['svg with a stray </p> before style', '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">'],
  ['declarative shadow root template', '<div><template shadowrootmode="open"><img src=x onerror=alert(1)></template></div>'],
  ['plaintext swallowing the rest', '<plaintext><img src=x onerror=alert(1)>'],
  ['CDATA section in HTML', '<![CDATA[><img src=x onerror=alert(1)>]]>'],
  ['processing instruction', '<?xml foo="><img src=x onerror=alert(1)>"?>'],
  ['foster-parented img in a table', '<table><img src=x onerror=alert(1)><tr><td>x</td></tr></table>'],
  ['already escaped markup in text', '&lt;img src=x onerror=alert(1)&gt;'],
  // Navigation and embedding
  ['iframe srcdoc', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>'],
  ['button formaction', '<form><button formaction="javascript:alert(1)">go</button></form>'],
  ['input formaction', '<input type="submit" formaction="javascript:alert(1)" value="go">'],
  ['form action', '<form action="javascript:alert(1)"><input type=submit></form>'],
  ['base href', '<base href="javascript:alert(1)//"><a href="/x">x</a>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
  ['object data', '<object data="javascript:alert(1)"></object>'],
  ['embed src', '<embed src="data:text/html,<script>alert(1)</script>">'],
  ['link rel=import', '<link rel="import" href="https://evil.example/x.html">'],
  ['portal', '<portal src="https://evil.example/"></portal>'],
  ['frameset with a javascript: frame', '<frameset><frame src="javascript:alert(1)"></frameset>'],
  ['isindex action', '<isindex action="javascript:alert(1)" type="image">'],
  ['video poster', '<video poster="javascript:alert(1)"></video>'],
  ['blockquote cite', '<blockquote cite="javascript:alert(1)">q</blockquote>'],
  ['table background', '<table background="javascript:alert(1)"><tr><td>x</td></tr></table>'],
  ['img dynsrc and lowsrc', '<img dynsrc="javascript:alert(1)" lowsrc="javascript:alert(1)">'],
  ...domClobbering,
];

describe('sanitizeEmailHtml against hostile HTML', () => {
  it('covers at least 60 vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(60));

  it.each(vectors)('leaves no dangerous residue: %s', (_name, html) => {
    expect(dangerousResidue(sanitizeEmailHtml(html))).toEqual([]);
  });

  it.each(vectors)('is idempotent on its own output: %s', (_name, html) => {
    const once = sanitizeEmailHtml(html);
    expect(sanitizeEmailHtml(once)).toBe(once);
  });

  it.each(domClobbering)('keeps no id or name that could clobber the DOM: %s', (_name, html) => {
    expect(sanitizeEmailHtml(html)).not.toMatch(/\s(?:id|name)=/);
  });

  it('does not show the content of removed script and style elements as text', () => {
    const html = '<p>a<script>document.write("leaked")</script>b</p><style>p { color: red }</style><title>Subject</title>';
    expect(sanitizeEmailHtml(html)).toBe('<p>ab</p>');
  });
});

describe('the residue checker', () => {
  it.each([
    ['<img src=x onerror=alert(1)>', 'event handler onerror on <img>'],
    ['<a href="java&#9;script:alert(1)">x</a>', 'javascript: URL in <a> href="java\tscript:alert(1)"'],
    ['<img src="data:image/svg+xml,x">', 'non-image data: URL in <img> src="data:image/svg+xml,x"'],
    ['<div style="width:e\\78 pression(alert(1))">x</div>', 'CSS expression( in <div> style="width:e\\78 pression(alert(1))"'],
    ['<svg></svg>', 'element <svg>'],
    ['<iframe srcdoc="x"></iframe>', 'attribute srcdoc on <iframe>'],
  ])('reports the residue in %s', (html, problem) => {
    expect(dangerousResidue(html)).toContain(problem);
  });

  it('reports HTML that sanitizing would still change', () => {
    expect(dangerousResidue('<p class="x">y</p>')).toEqual([expect.stringMatching(/^sanitizing again changes the HTML/)]);
  });
});

/** A typical marketing mail: full document, head styles, nested layout tables, cid: logo. */
const newsletter = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Weekly digest</title>
<style>.preheader { display: none } body { margin: 0 }</style></head>
<body style="margin:0;padding:0;background-color:#f4f4f4">
<table width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f4f4f4">
  <tr><td align="center" valign="top" style="padding:20px 0">
    <table width="600" cellpadding="10" cellspacing="0" border="0" bgcolor="#ffffff" align="center" style="border:1px solid #dddddd;font-family:Arial, Helvetica, sans-serif">
      <tr>
        <td align="left"><a href="https://shop.example.com/?utm_source=mail&amp;utm_medium=email"><img src="cid:logo@shop.example.com" width="120" height="40" alt="Example Shop" border="0"></a></td>
        <td align="right" style="font-size:12px;color:#888888"><a href="https://shop.example.com/view/42">View in browser</a></td>
      </tr>
      <tr><td colspan="2">
        <h1 style="color:#333333;font-family:Georgia, 'Times New Roman', serif;text-align:center;margin:0 0 10px 0">Spring sale</h1>
        <p style="color:#555555;line-height:1.5;font-size:16px;behavior:url(x.htc);background-image:url(https://t.example/p.gif);padding:0 8px">Up to <strong>40%</strong> off &amp; free returns.</p>
      </td></tr>
      <tr>
        <td width="50%" valign="top">
          <img src="https://cdn.example.com/p/1.jpg" width="280" height="200" alt="Blue jacket" style="display:block;width:280px;height:auto">
          <h2 style="font-size:18px;margin:10px 0">Blue jacket</h2>
          <a href="https://shop.example.com/p/1" style="background-color:#0066cc;color:#ffffff;padding:10px 20px;text-decoration:none;border-radius:4px;display:inline-block">Buy now</a>
        </td>
        <td width="50%" valign="top">
          <img src="http://cdn.example.com/p/2.jpg" width="280" height="200" alt="Red scarf" style="display:block;width:expression(alert(1));height:auto">
          <h2 style="font-size:18px;margin:10px 0">Red scarf</h2>
          <a href="https://shop.example.com/p/2" style="color:#0066cc;-moz-binding:url(https://evil.example/x.xml#x)">Buy now</a>
        </td>
      </tr>
      <tr><td colspan="2">
        <table width="100%" cellpadding="4" cellspacing="0" border="1" style="border-collapse:collapse">
          <thead><tr><th align="left" bgcolor="#eeeeee">Item</th><th align="right" bgcolor="#eeeeee">Price</th></tr></thead>
          <tbody><tr><td>Blue jacket</td><td align="right">€59</td></tr><tr><td>Red scarf</td><td align="right">€19</td></tr></tbody>
        </table>
        <ul><li>Free shipping over €50</li><li>30-day returns</li></ul>
        <ol><li>Pick</li><li>Pay</li></ol>
      </td></tr>
      <tr><td colspan="2" bgcolor="#eeeeee" style="font-size:11px;color:#999999;text-align:center">
        You receive this because you subscribed. <a href="https://shop.example.com/unsubscribe?u=1">Unsubscribe</a> |
        <a href="mailto:support@shop.example.com">Contact us</a>
      </td></tr>
    </table>
  </td></tr>
</table>
</body></html>`;

function count(html: string, tag: string): number {
  return html.match(new RegExp(`<${tag}[\\s>/]`, 'g'))?.length ?? 0;
}

describe('sanitizeEmailHtml on ordinary mail', () => {
  const clean = sanitizeEmailHtml(newsletter);

  it('leaves the newsletter with no dangerous residue', () => expect(dangerousResidue(clean)).toEqual([]));

  it.each(['table', 'thead', 'tbody', 'tr', 'td', 'th', 'img', 'a', 'h1', 'h2', 'p', 'strong', 'ul', 'ol', 'li'])(
    'keeps every <%s>',
    (tag) => {
      expect(count(newsletter, tag)).toBeGreaterThan(0);
      expect(count(clean, tag)).toBe(count(newsletter, tag));
    },
  );

  it('keeps the layout attributes of tables and cells', () => {
    expect(clean).toContain('<table width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f4f4f4">');
    expect(clean).toContain(
      '<table width="600" cellpadding="10" cellspacing="0" border="0" bgcolor="#ffffff" align="center" style="border:1px solid #dddddd;font-family:Arial, Helvetica, sans-serif">',
    );
    expect(clean).toContain('<td align="center" valign="top" style="padding:20px 0">');
    expect(clean).toContain('<td width="50%" valign="top">');
    expect(clean).toContain('<th align="left" bgcolor="#eeeeee">');
    expect(clean).toContain('<table width="100%" cellpadding="4" cellspacing="0" border="1" style="border-collapse:collapse">');
    expect(count(clean, 'td colspan="2"')).toBe(3);
  });

  it('keeps images from cid:, https: and http: with their size and alt text', () => {
    expect(clean).toContain('<img src="cid:logo@shop.example.com" width="120" height="40" alt="Example Shop" border="0" />');
    expect(clean).toContain(
      '<img src="https://cdn.example.com/p/1.jpg" width="280" height="200" alt="Blue jacket" style="display:block;width:280px;height:auto" />',
    );
    expect(clean).toContain('<img src="http://cdn.example.com/p/2.jpg" width="280" height="200" alt="Red scarf" style="display:block;height:auto" />');
  });

  it('keeps every link and opens it in a new tab with rel="noopener noreferrer nofollow"', () => {
    const links = clean.match(/<a [^>]*>/g) ?? [];
    expect(links).toHaveLength(6);
    for (const link of links) expect(link).toMatch(/ rel="noopener noreferrer nofollow" target="_blank"/);
    expect(clean).toContain('<a href="https://shop.example.com/?utm_source=mail&amp;utm_medium=email" rel=');
    expect(clean).toContain('<a href="mailto:support@shop.example.com" rel="noopener noreferrer nofollow" target="_blank">Contact us</a>');
  });

  it('drops the dangerous properties of a style attribute and keeps the safe ones beside them', () => {
    expect(clean).toContain('<p style="color:#555555;line-height:1.5;font-size:16px;padding:0 8px">');
    const linkEnd = 'rel="noopener noreferrer nofollow" target="_blank">Buy now</a>';
    expect(clean).toContain(`<a href="https://shop.example.com/p/2" style="color:#0066cc" ${linkEnd}`);
    expect(clean).toContain(
      `style="background-color:#0066cc;color:#ffffff;padding:10px 20px;text-decoration:none;border-radius:4px;display:inline-block" ${linkEnd}`,
    );
    expect(clean).toContain(`<h1 style="color:#333333;font-family:Georgia, 'Times New Roman', serif;text-align:center;margin:0 0 10px 0">`);
  });

  it('keeps text with its entities and drops the head', () => {
    expect(clean).toContain('Up to <strong>40%</strong> off &amp; free returns.');
    expect(clean).toContain('<td align="right">€59</td>');
    expect(clean).not.toMatch(/Weekly digest|preheader|charset/);
  });
});

describe('sanitizeEmailHtml on URLs', () => {
  it('keeps a mailto: link', () => {
    expect(sanitizeEmailHtml('<a href="mailto:a@example.com?subject=Hi">write</a>')).toBe(
      '<a href="mailto:a@example.com?subject=Hi" rel="noopener noreferrer nofollow" target="_blank">write</a>',
    );
  });

  it('keeps a cid: image for the API to rewrite', () => {
    expect(sanitizeEmailHtml('<img src="cid:part1.04030807@example.com" alt="logo">')).toBe(
      '<img src="cid:part1.04030807@example.com" alt="logo" />',
    );
  });

  it.each(['png', 'gif', 'jpeg', 'webp'])('keeps a data:image/%s image', (type) => {
    const html = `<img src="data:image/${type};base64,iVBORw0KGgo=" alt="dot" />`;
    expect(sanitizeEmailHtml(html)).toBe(html);
  });

  it.each([
    'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
    'data:image/svg+xml,%3Csvg%2F%3E',
    'DATA:IMAGE/SVG+XML,<svg/>',
    'data:text/html,<p>',
    '//evil.example/a.png',
    '/relative/a.png',
  ])('drops the image source %s', (src) => {
    expect(sanitizeEmailHtml(`<img src="${src}" alt="x">`)).toBe('<img alt="x" />');
  });

  it.each(['ftp://example.com/f', 'tel:+15555550100', '//example.com/', '/account', '#top'])(
    'drops the link target %s, keeping the text',
    (href) => {
      expect(sanitizeEmailHtml(`<a href="${href}">go</a>`)).toBe('<a rel="noopener noreferrer nofollow" target="_blank">go</a>');
    },
  );
});
