import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Browser, BrowserContext, Frame, Page, Request } from 'playwright-core';
import { workPool } from '../../lambdas/core/work-pool';
import { json } from './json';
import type { TestService } from './local-service';
import { startLoopbackOrigin, type LoopbackOrigin } from './loopback-origin';

/** A vector as it came back from the API: the sanitized `html` of its message. */
export interface SanitizedVector {
  name: string;
  html: string;
}

/**
 * Mails each vector as its own message through the SMTP intake (nodemailer over one pooled
 * connection), then reads every message back through `/v1` and returns its sanitized `html`.
 * Reads stay under the short-window limit by moving the test clock to the next window.
 */
export async function mailAndReadBack(service: TestService, vectors: readonly [string, string][]): Promise<SanitizedVector[]> {
  const { apiKey } = await service.account('paid');
  const localPart = `xss-${randomUUID().slice(0, 8)}`;
  const created = await service.createEmail(apiKey, { local_part: localPart });
  if (created.status !== 201) throw new Error(`address not created: ${created.status}`);
  const emailId = (await json(created)).data.id as string;

  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: service.runtime.smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 4,
    maxMessages: Infinity,
  });
  try {
    await Promise.all(
      vectors.map(([, html], index) =>
        transport.sendMail({ from: 'sender@example.org', to: `${localPart}@tempmail.localhost`, subject: `vector ${index}`, html }),
      ),
    );
  } finally {
    transport.close();
  }

  // Reads go 4 at a time; the clock moves to the next window every 200 requests, so that a window
  // never holds more than 200 and the few still in flight, under the 300 a key may make.
  let requests = 0;
  const get = async (path: string) => {
    if (++requests % 200 === 0) service.clock.advance(60_000);
    const response = await service.request(path, { key: apiKey });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return json(response);
  };
  const idsBySubject = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await get(`/v1/emails/${emailId}/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const item of page.data) idsBySubject.set(item.subject, item.id);
    cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
  } while (cursor);

  const ids = vectors.map(([name], index) => {
    const id = idsBySubject.get(`vector ${index}`);
    if (!id) throw new Error(`vector ${index} (${name}) was not delivered`);
    return id;
  });
  const sanitized: SanitizedVector[] = new Array(vectors.length);
  const failures: unknown[] = [];
  const reads = workPool(4, (error) => failures.push(error));
  for (const [index, id] of ids.entries()) {
    await reads.add(async () => {
      sanitized[index] = { name: vectors[index]![0], html: (await get(`/v1/messages/${id}`)).data.html as string };
    });
  }
  await reads.settled();
  if (failures.length > 0) throw failures[0];
  return sanitized;
}

/** The three ways `renderAllWays` shows HTML: as a whole page, through `innerHTML`, and through `innerHTML` read back and assigned again. */
const renderWays = ['page', 'innerHTML', 'innerHTML re-serialized'] as const;
type RenderWay = (typeof renderWays)[number];

/** Something that should never happen while sanitized mail is shown and clicked. */
export interface Incident {
  kind: string;
  detail: string;
  /** Which render it happened in: the mode and the vectors on the page. */
  during: string;
}

/** A request to another host that the mail's own content asked for, by design (DESIGN: inbound mail keeps remote images and links). */
export interface ContentRequest {
  type: 'image' | 'link';
  url: string;
}

const cspReportPath = '/csp-report';

/**
 * Installed in every frame before any of its scripts: replaces the functions a payload calls to
 * prove it ran, and listens for the report-only CSP's violations. `__incident` is a Playwright
 * binding, so a report reaches the test even when the page's own state is corrupted.
 */
const hooks = `(() => {
  const report = (kind, detail) => { try { window.__incident(kind, String(detail).slice(0, 300)); } catch (e) {} };
  // A tab the mail opened, asked at its first moment, while the page that opened it is surely
  // still there (asked later, a page the harness has since replaced reads as no opener).
  if (window.opener !== null && location.href !== 'about:blank') report('opened tab can reach its opener', location.href);
  for (const name of ['alert', 'confirm', 'prompt', 'print']) {
    window[name] = function (value) { report('script execution: ' + name, value); };
  }
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table']) {
    console[name] = function (value) { report('script execution: console.' + name, value); };
  }
  document.addEventListener('securitypolicyviolation', (event) => {
    report('CSP violation', event.violatedDirective + ' ' + event.blockedURI + ' ' + event.sample);
  }, true);
})();`;

/**
 * Chromium rendering sanitized HTML in a page of a real origin on loopback (http, or https with
 * a self-signed certificate), as a web app showing mail would, with a report-only
 * `script-src 'none'` policy. Every request Chromium makes passes the context's route: the one
 * load of the page at its unguessable path goes through to the origin's server; any other
 * request to the page's own origin (an image, a link, a form, a navigation that resolved against
 * the page) and every request to another host is refused and recorded, and so is anything the
 * server received beyond the page loads. Every dialog is dismissed and recorded, every popup
 * recorded and closed.
 */
export class MailRenderer {
  readonly incidents: Incident[] = [];
  readonly contentRequests: ContentRequest[] = [];
  /** What each render did, for the figures the suite reports. */
  readonly counts = { renders: 0, clicks: 0, events: 0, inPageLinks: 0, inPageTargets: 0 };
  private during = '';
  private body = '';
  /** The links and images of the HTML on screen: the only other hosts it may reach, and only by a click or an image load. */
  private linkUrls = new Set<string>();
  private imageUrls = new Set<string>();
  private readonly popups = new Set<Promise<void>>();
  /** The ways each HTML has been rendered (by its text: the browser is given nothing else). */
  private readonly ways = new Map<string, Set<RenderWay>>();

  /** The page renders happen in; replaced by a fresh one after it navigated itself. */
  private page!: Page;
  private pageNavigatedAway = false;

  /** Page loads begun by `load` and not yet let through to the server. */
  private pendingLoads = 0;

  private constructor(
    private readonly context: BrowserContext,
    private readonly site: LoopbackOrigin,
    /** The page's own address: its origin and a path no mail can know. */
    private readonly pageUrl: string,
    private readonly secure: boolean,
  ) {}

  /** The origin the page is served from (`http://127.0.0.1:<port>`, or `https://…` with `secure`). */
  get origin(): string {
    return this.site.origin;
  }

  static async open(browser: Browser, options: { secure?: boolean } = {}): Promise<MailRenderer> {
    const secure = options.secure ?? false;
    const pagePath = `/render-${randomUUID()}`;
    let renderer: MailRenderer | undefined;
    const site = await startLoopbackOrigin(secure, (request, response) => {
      if (request.method === 'GET' && request.url === pagePath && renderer) {
        response.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy-report-only': `script-src 'none'; report-uri ${cspReportPath}`,
          'cache-control': 'no-store',
        });
        response.end(renderer.body);
        return;
      }
      response.writeHead(404).end();
    });
    const context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: false, ignoreHTTPSErrors: secure });
    renderer = new MailRenderer(context, site, `${site.origin}${pagePath}`, secure);
    await renderer.install();
    await renderer.newPage();
    return renderer;
  }

  private incident(kind: string, detail: string) {
    this.incidents.push({ kind, detail: detail.slice(0, 300), during: this.during });
  }

  private async newPage() {
    const page = await this.context.newPage();
    page.on('dialog', (dialog) => {
      this.incident('dialog', `${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('framenavigated', (frame) => {
      const url = frame.url();
      // The page itself, or an in-page link's fragment of it (a same-document navigation).
      if (url === this.pageUrl || url.startsWith(`${this.pageUrl}#`) || url === 'about:blank') return;
      this.incident('navigation', `${frame === page.mainFrame() ? 'main' : 'child'} frame to ${url}`);
      if (frame === page.mainFrame()) this.pageNavigatedAway = true;
    });
    page.on('popup', (popup) => this.popups.add(this.inspectPopup(popup)));
    this.pageNavigatedAway = false;
    this.page = page;
  }

  private async install() {
    await this.context.exposeBinding('__incident', (_source, kind: string, detail: string) => this.incident(kind, detail));
    await this.context.addInitScript({ content: hooks });
    await this.context.route('**/*', async (route) => {
      const request = route.request();
      const url = new URL(request.url());
      const type = request.resourceType();
      const mainFrame = frameOf(request) === this.page.mainFrame();
      if (url.origin === this.origin) {
        if (url.pathname === cspReportPath) {
          this.incident('CSP report', request.postData() ?? '');
          return route.fulfill({ status: 204 });
        }
        if (request.url() === this.pageUrl && type === 'document' && mainFrame && request.method() === 'GET' && this.pendingLoads > 0) {
          this.pendingLoads -= 1;
          return route.continue();
        }
        if (mainFrame && type === 'document') this.pageNavigatedAway = true;
        this.incident(`request to the page's own origin (${request.method()} ${type}${mainFrame && type === 'document' ? ', main frame' : ''})`, request.url());
        return route.abort('blockedbyclient');
      }
      if (mainFrame && type === 'document') this.pageNavigatedAway = true;
      if (type === 'image' && this.imageUrls.has(request.url())) this.contentRequests.push({ type: 'image', url: request.url() });
      else if (type === 'document' && !mainFrame && this.linkUrls.has(request.url())) {
        // A followed link opens in a new tab: served a blank page here, so that the hooks run in it and can tell whether it can reach back.
        this.contentRequests.push({ type: 'link', url: request.url() });
        return route.fulfill({ status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>link</title>' });
      } else this.incident(`request to another host (${type}${mainFrame && type === 'document' ? ', main frame' : ''})`, request.url());
      return route.abort('blockedbyclient');
    });
  }

  /**
   * A tab opened by a click: it must have no way back to the page that showed the mail
   * (`window.opener` null, as `rel="noopener"` promises).
   */
  private async inspectPopup(popup: Page) {
    try {
      await popup.waitForLoadState('load');
      if (await popup.evaluate<boolean>('window.opener !== null')) this.incident('opened tab can reach its opener', popup.url());
    } catch {
      // Closed or crashed before it could be asked: the navigation itself was recorded by the route.
    } finally {
      await popup.close().catch(() => undefined);
    }
  }

  /**
   * Waits for the tabs opened so far to be inspected and closed, then records anything the
   * origin's server received beyond the page loads: a request that reached it behind the route.
   */
  async settle() {
    while (this.popups.size > 0) {
      const pending = [...this.popups];
      this.popups.clear();
      await Promise.all(pending);
    }
    const pagePath = new URL(this.pageUrl).pathname;
    for (const { method, path } of this.site.received.splice(0)) {
      if (!(method === 'GET' && path === pagePath)) this.incident("request to the page's own origin reached its server", `${method} ${path}`);
    }
  }

  /**
   * Loads the render page, in a fresh tab when the last one tried to navigate itself (already
   * recorded as an incident), so that its late navigations cannot interrupt this load.
   */
  private async load() {
    if (this.pageNavigatedAway) {
      await this.page.close();
      await this.newPage();
    }
    this.pendingLoads += 1;
    await this.page.goto(this.pageUrl, { waitUntil: 'load' });
  }

  /** Serves `html` as the body of a whole page, then interacts with it. */
  async renderAsPage(vector: SanitizedVector) {
    this.during = `page: ${vector.name}`;
    this.body = `<!doctype html><html><head><meta charset="utf-8"><title>mail</title></head><body>${vector.html}</body></html>`;
    this.allowContentOf([vector.html]);
    await this.load();
    this.counts.renders += 1;
    this.rendered(vector.html, 'page');
    await this.interact();
  }

  /**
   * Assigns each HTML to its own container's `innerHTML` on one blank page; with `reserialize`,
   * reads `innerHTML` back and assigns that again, as code that copies mail between nodes would
   * (where mutation XSS appears).
   */
  async renderThroughInnerHtml(vectors: SanitizedVector[], reserialize: boolean) {
    this.during = `${reserialize ? 'innerHTML re-serialized' : 'innerHTML'}: ${vectors.map((v) => v.name).join(' | ')}`;
    this.body = '<!doctype html><html><head><meta charset="utf-8"><title>mail</title></head><body></body></html>';
    this.allowContentOf(vectors.map((v) => v.html));
    await this.load();
    await this.page.evaluate(`(${assignInnerHtml})(${JSON.stringify(vectors.map((v) => v.html))}, ${reserialize})`);
    this.counts.renders += vectors.length;
    for (const vector of vectors) this.rendered(vector.html, reserialize ? 'innerHTML re-serialized' : 'innerHTML');
    await this.interact();
  }

  private rendered(html: string, way: RenderWay) {
    const ways = this.ways.get(html) ?? new Set<RenderWay>();
    ways.add(way);
    this.ways.set(html, ways);
  }

  /** Each vector's ways of rendering that its HTML has not been shown in yet (`name: way`); empty once all were. */
  waysMissing(vectors: readonly SanitizedVector[]): string[] {
    return vectors.flatMap(({ name, html }) => renderWays.filter((way) => !this.ways.get(html)?.has(way)).map((way) => `${name}: ${way}`));
  }

  /**
   * The absolute link and image URLs the HTML holds, as the browser resolves them; kept for the
   * whole run, since a tab opened by a click may load after the next render has begun.
   */
  private allowContentOf(htmls: string[]) {
    for (const html of htmls) {
      for (const match of html.matchAll(/<a [^>]*?href="(https?:[^"]*)"/g)) {
        const url = absolute(match[1]!);
        this.linkUrls.add(url);
        // Chromium may open an http link over https first (HTTPS-Upgrades), to the same host.
        this.linkUrls.add(url.replace(/^http:/, 'https:'));
      }
      for (const match of html.matchAll(/<img [^>]*?src="(https?:[^"]*)"/g)) {
        const url = absolute(match[1]!);
        this.imageUrls.add(url);
        // An https page loads an http image over https (Chromium upgrades mixed-content images).
        if (this.secure) this.imageUrls.add(url.replace(/^http:/, 'https:'));
      }
    }
  }

  /**
   * Fires the events handler attributes listen for at every element, then clicks every link,
   * button, area, summary, label and input (their activation behaviour: following links,
   * toggling details, submitting), and waits until every image has loaded or failed and a frame
   * has been drawn, so that consequences of the clicks and loads have happened.
   */
  private async interact() {
    const done = await this.page.evaluate<Interaction>(`(${interactWithEverything})()`).catch((error: Error): Interaction => {
      // Only a page that navigated away (or was replaced) loses its context mid-interaction.
      this.incident('page navigated or replaced during interaction', error.message.split('\n')[0]!);
      return { clicks: 0, events: 0, clobbered: [], inPageLinks: 0, inPageTargets: 0 };
    });
    for (const name of done.clobbered) this.incident('DOM clobbering', name);
    this.counts.clicks += done.clicks;
    this.counts.events += done.events;
    this.counts.inPageLinks += done.inPageLinks;
    this.counts.inPageTargets += done.inPageTargets;
  }

  async close() {
    await this.settle();
    await this.context.close();
    await this.site.close();
  }
}

/**
 * Page-side code, kept as source text (the project compiles without DOM types): assigns each
 * HTML to its own container's `innerHTML`, and with `again` reads it back and assigns it again.
 */
const assignInnerHtml = `(htmls, again) => {
  for (const html of htmls) {
    const box = document.createElement('div');
    document.body.append(box);
    box.innerHTML = html;
    if (again) box.innerHTML = box.innerHTML;
  }
}`;

interface Interaction {
  clicks: number;
  events: number;
  /** Page properties that an element of the mail has taken over (`document.x`, `window.x`). */
  clobbered: string[];
  /** In-page `#` links, and how many of them find their target in the page. */
  inPageLinks: number;
  inPageTargets: number;
}

/** Page-side code: see `interact`. Also looks for DOM clobbering and counts in-page links. */
const interactWithEverything = `async () => {
  const names = ['location', 'document', 'alert', 'getElementById', 'querySelector', 'querySelectorAll', 'body', 'head',
    'cookie', 'domain', 'forms', 'images', 'links', 'defaultView', 'createElement', 'write', 'open', 'top', 'parent',
    'self', 'opener', 'name', '__incident', 'fetch', 'XMLHttpRequest', 'console', 'localStorage', 'origin', 'URL',
    'documentElement', 'currentScript', 'activeElement', 'x', 'config', 'CONFIG', 'settings'];
  const taken = (value) => value instanceof Element || value instanceof HTMLCollection || value instanceof NodeList;
  // What the document's own interfaces answer for a name, bypassing named access to elements.
  const native = (name) => {
    for (let proto = Object.getPrototypeOf(document); proto; proto = Object.getPrototypeOf(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor) return descriptor.get ? descriptor.get.call(document) : descriptor.value;
    }
    return undefined;
  };
  const clobbered = [];
  for (const name of names) {
    // None of these is an element or a collection on a window of its own.
    if (taken(window[name])) clobbered.push('window.' + name);
    if (taken(document[name]) && document[name] !== native(name)) clobbered.push('document.' + name);
  }
  const inPage = Array.from(document.querySelectorAll('a[href^="#"]'));
  const inPageTargets = inPage.filter((link) => {
    const id = decodeURIComponent(link.getAttribute('href').slice(1));
    return document.getElementById(id) !== null || document.getElementsByName(id).length > 0;
  }).length;
  const types = ['mouseover', 'mouseenter', 'mousedown', 'mouseup', 'pointerover', 'pointerdown', 'focus', 'focusin', 'keydown',
    'input', 'change', 'toggle', 'animationstart', 'transitionend', 'scroll', 'wheel', 'copy', 'dragstart', 'touchstart'];
  let events = 0;
  for (const element of Array.from(document.querySelectorAll('body *'))) {
    for (const type of types) {
      element.dispatchEvent(new Event(type, { bubbles: true }));
      events += 1;
    }
  }
  const clickables = Array.from(document.querySelectorAll('a, button, area, summary, label, input'));
  for (const element of clickables) {
    element.focus();
    element.click();
  }
  const images = Array.from(document.images).filter((image) => !image.complete);
  await Promise.all(images.map((image) => new Promise((settle) => {
    image.addEventListener('load', settle, { once: true });
    image.addEventListener('error', settle, { once: true });
  })));
  await new Promise((settle) => requestAnimationFrame(() => setTimeout(settle, 0)));
  return { clicks: clickables.length, events, clobbered, inPageLinks: inPage.length, inPageTargets };
}`;

/** A request's frame; a popup's first navigation has none yet. */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/** A URL as the request for it is made: resolved, without its fragment. */
function absolute(url: string): string {
  try {
    const parsed = new URL(url.replace(/&amp;/g, '&'));
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * The vectors with one entry per distinct HTML, named after every vector that sanitized to it
 * (`a = b = c`), so that an incident names them all.
 */
export function distinctHtml(vectors: readonly SanitizedVector[]): SanitizedVector[] {
  const names = new Map<string, string[]>();
  for (const { name, html } of vectors) names.set(html, [...(names.get(html) ?? []), name]);
  return [...names].map(([html, sharing]) => ({ name: sharing.join(' = '), html }));
}

/**
 * Renders every sanitized vector the three ways, in batches on reused pages. Vectors whose
 * sanitized HTML is the same text are rendered once: Chromium is given the same bytes at the same
 * address, in a fresh page load or the same assignment, so a second render repeats the first
 * (most of a corpus sanitizes to a few shared results, such as the empty string); each vector
 * still counts as rendered every way (`waysMissing`).
 */
export async function renderAllWays(renderer: MailRenderer, vectors: SanitizedVector[], batch = 60) {
  const sanitized = distinctHtml(vectors);
  for (const vector of sanitized) await renderer.renderAsPage(vector);
  for (let start = 0; start < sanitized.length; start += batch) {
    const slice = sanitized.slice(start, start + batch);
    await renderer.renderThroughInnerHtml(slice, false);
    await renderer.renderThroughInnerHtml(slice, true);
  }
  await renderer.settle();
}
