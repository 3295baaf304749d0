import { idPrefixFor, sanitizeEmailHtml } from '../../../lambdas/mail/sanitize-email-html';
import { dangerousResidue } from '../../support/html-residue';
import { sameOriginUrlForms, sameOriginUrlVectors } from '../../support/url-form-vectors';
import { domClobbering, xssVectors as vectors } from '../../support/xss-vectors';


describe('sanitizeEmailHtml against hostile HTML', () => {
  it('covers at least 150 vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(150));

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

describe('sanitizeEmailHtml with a message id prefix', () => {
  const idPrefix = idPrefixFor('1795000000000-AbCdEfGhIjKl');

  it('makes a prefix of m-, ten hex characters and a dash, distinct per mail', () => {
    expect(idPrefix).toMatch(/^m-[0-9a-f]{10}-$/);
    expect(idPrefixFor('1795000000000-AbCdEfGhIjKm')).not.toBe(idPrefix);
  });

  it.each(vectors)('leaves no dangerous residue and is idempotent: %s', (_name, html) => {
    const once = sanitizeEmailHtml(html, { idPrefix });
    expect(dangerousResidue(once, { idPrefix })).toEqual([]);
    expect(sanitizeEmailHtml(once, { idPrefix })).toBe(once);
  });

  it.each(domClobbering)('keeps ids and names only under the prefix: %s', (_name, html) => {
    const clean = sanitizeEmailHtml(html, { idPrefix });
    for (const [, value] of clean.matchAll(/\s(?:id|name)="([^"]*)"/g)) expect(value!.startsWith(idPrefix)).toBe(true);
  });

  it('keeps in-page links and their targets under the prefix, in the same tab', () => {
    const html = '<a href="#top">up</a><h2 id="top">Top</h2><a name="old-anchor"></a><a href="#old-anchor">x</a><a href="https://x.example/#top">out</a>';
    expect(sanitizeEmailHtml(html, { idPrefix })).toBe(
      `<a href="#${idPrefix}top">up</a><h2 id="${idPrefix}top">Top</h2><a rel="noopener noreferrer nofollow" target="_blank" name="${idPrefix}old-anchor"></a>` +
        `<a href="#${idPrefix}old-anchor">x</a><a href="https://x.example/#top" rel="noopener noreferrer nofollow" target="_blank">out</a>`,
    );
  });

  it.each(['#', '# x', '#a#b', '#a"b', '#javascript:alert(1)'])('keeps only a plain fragment: %s', (href) => {
    const clean = sanitizeEmailHtml(`<a href="${href}">go</a>`, { idPrefix });
    expect(dangerousResidue(clean, { idPrefix })).toEqual([]);
    const kept = /href="([^"]*)"/.exec(clean)?.[1];
    if (kept !== undefined) expect(kept.startsWith(`#${idPrefix}`)).toBe(true);
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
    ['<img name="getElementById">', 'clobbering name="getElementById" on <img>'],
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

describe('sanitizeEmailHtml and URLs that resolve against the page showing the mail', () => {
  it.each(sameOriginUrlVectors)('keeps none of them, in any attribute or style: %s', (_name, html) => {
    for (const options of [{}, { idPrefix: idPrefixFor('1795000000000-AbCdEfGhIjKl') }]) {
      const clean = sanitizeEmailHtml(html, options);
      expect(dangerousResidue(clean, options)).toEqual([]);
      expect(clean).not.toMatch(/(?:href|src)="(?!#m-)[^"]*leak\//);
    }
  });

  it.each(sameOriginUrlForms)('drops the form from links and images: %s', (_name, form) => {
    const clean = sanitizeEmailHtml(`<a href="${form('account/delete')}">a</a><img src="${form('account/delete')}">`);
    expect(clean).toBe('<a rel="noopener noreferrer nofollow" target="_blank">a</a><img />');
  });

  it.each([
    'https://shop.example/order/1?a=1&amp;b=2#top',
    'HTTPS://SHOP.EXAMPLE/',
    'http://shop.example:8080/x',
    'https:\\\\shop.example\\x',
    'https:///shop.example/x',
    ' https://shop.example/x ',
    'ht&#9;tps://shop.example/x',
    'https&colon;//shop.example/x',
  ])('keeps an absolute URL with its authority, as written: %s', (url) => {
    const clean = sanitizeEmailHtml(`<a href="${url}">a</a>`);
    expect(clean).toMatch(/^<a href="[^"]+" rel="noopener noreferrer nofollow" target="_blank">a<\/a>$/);
    expect(dangerousResidue(clean)).toEqual([]);
  });

  it('keeps mailto links and cid and raster data images, which name no page', () => {
    expect(sanitizeEmailHtml('<a href="mailto:help@shop.example">m</a><img src="cid:logo@shop"><img src="data:image/png;base64,iVBORw0KGgo=">')).toBe(
      '<a href="mailto:help@shop.example" rel="noopener noreferrer nofollow" target="_blank">m</a><img src="cid:logo@shop" /><img src="data:image/png;base64,iVBORw0KGgo=" />',
    );
  });
});

describe('sanitizeEmailHtml and styles that would move a mail out of its container', () => {
  it.each([
    ['a negative margin', 'margin-top:-40px', ''],
    ['a negative shorthand margin', 'margin:0 0 0 -20px', ''],
    ['negative letter-spacing', 'letter-spacing:-2px', ''],
    ['a viewport width', 'width:100vw', ''],
    ['a viewport height', 'height:50vh', ''],
    ['a raising vertical-align', 'vertical-align:200px', ''],
    ['a font size past 48 px', 'font-size:49px', ''],
    ['a font size relative to the parent', 'font-size:3em', ''],
    ['a transparent text colour', 'color:transparent', ''],
    ['an 8-digit colour', 'color:#11223300', ''],
    ['a 4-digit colour', 'color:#1230', ''],
    ['an rgba() with alpha', 'color:rgba(0,0,0,0.5)', ''],
    ['an hsl() with a slash alpha', 'color:hsl(0 0% 0% / 0)', ''],
    ['the ordinary layout of mail', 'margin:0 auto;width:600px;font-size:14px;color:#333;background-color:transparent;vertical-align:top', 'margin:0 auto;width:600px;font-size:14px;color:#333;background-color:transparent;vertical-align:top'],
    ['an opaque rgb()', 'color:rgb(10, 20, 30)', 'color:rgb(10, 20, 30)'],
  ])('%s', (_name, style, kept) => {
    const clean = sanitizeEmailHtml(`<p style="${style}">x</p>`);
    expect(clean).toBe(kept ? `<p style="${kept}">x</p>` : '<p>x</p>');
  });
});
