import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { idPrefixFor, sanitizeEmailHtml } from '../../lambdas/mail/sanitize-email-html';
import { launchChromium } from '../support/chromium';

/**
 * Does a sanitized newsletter still look like itself? Each fixture (written like real marketing,
 * digest and receipt mail) is rendered in Chromium as sent and as sanitized, in the same
 * 720-pixel container with every outside request refused, and the box of every element that
 * survives is compared with its original's.
 */
const fixtureDir = path.join(__dirname, '..', 'fixtures', 'newsletters');
const fixtures = readdirSync(fixtureDir).filter((name) => name.endsWith('.html')).sort();

interface Box {
  tag: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Rendered {
  boxes: Box[];
  inPageLinks: number;
  inPageTargets: number;
}

/** Page-side code (the project compiles without DOM types): boxes relative to the container, and in-page links. */
const measure = `(() => {
  const container = document.getElementById('container');
  const origin = container.getBoundingClientRect();
  const skip = new Set(['STYLE', 'SCRIPT', 'TITLE', 'META', 'LINK']);
  const boxes = Array.from(container.querySelectorAll('*')).filter((element) => !skip.has(element.tagName)).map((element) => {
    const box = element.getBoundingClientRect();
    return { tag: element.tagName, x: box.x - origin.x, y: box.y - origin.y, width: box.width, height: box.height };
  });
  const links = Array.from(container.querySelectorAll('a[href^="#"]'));
  const targets = links.filter((link) => {
    const id = decodeURIComponent(link.getAttribute('href').slice(1));
    return document.getElementById(id) !== null || document.getElementsByName(id).length > 0;
  });
  return { boxes, inPageLinks: links.length, inPageTargets: targets.length };
})()`;

let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1000, height: 800 } });
  await context.route('**/*', (route) => route.abort('blockedbyclient'));
});
afterAll(async () => {
  await browser?.close();
});

async function render(html: string): Promise<Rendered> {
  const page = await context.newPage();
  try {
    await page.setContent(`<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><div id="container" style="width:720px">${html}</div></body></html>`);
    return await page.evaluate<Rendered>(measure);
  } finally {
    await page.close();
  }
}

/** Pairs each sanitized element with the next original element of the same tag (the sanitizer only removes). */
function pair(original: Box[], sanitized: Box[]): [Box, Box][] {
  const pairs: [Box, Box][] = [];
  let next = 0;
  for (const box of sanitized) {
    while (next < original.length && original[next]!.tag !== box.tag) next += 1;
    if (next === original.length) break;
    pairs.push([original[next]!, box]);
    next += 1;
  }
  return pairs;
}

const close = (a: Box, b: Box) => ['x', 'y', 'width', 'height'].every((k) => Math.abs(a[k as 'x'] - b[k as 'x']) <= 1);

describe('newsletter layout after sanitization, in Chromium', () => {
  it('has the three newsletter fixtures', () => expect(fixtures).toHaveLength(3));

  it.each(fixtures)('%s keeps its elements, their boxes and its in-page links', async (name) => {
    const html = readFileSync(path.join(fixtureDir, name), 'utf8');
    const idPrefix = idPrefixFor(`fixture-${name}`);
    const [original, sanitized, withoutIds] = await Promise.all([
      render(html),
      render(sanitizeEmailHtml(html, { idPrefix })),
      render(sanitizeEmailHtml(html)),
    ]);
    const pairs = pair(original.boxes, sanitized.boxes);
    const same = pairs.filter(([a, b]) => close(a, b)).length;
    process.stdout.write(
      `newsletter layout ${name}: ${original.boxes.length} elements sent, ${sanitized.boxes.length} kept, ` +
        `${same}/${pairs.length} boxes within 1 px; in-page links reaching their target: ` +
        `${original.inPageTargets}/${original.inPageLinks} as sent, ${sanitized.inPageTargets}/${sanitized.inPageLinks} sanitized, ` +
        `${withoutIds.inPageTargets}/${withoutIds.inPageLinks} without the id prefix\n`,
    );
    expect(pairs).toHaveLength(sanitized.boxes.length);
    expect(same / pairs.length).toBeGreaterThanOrEqual(0.95);
    expect(sanitized.inPageTargets).toBe(original.inPageTargets);
  }, 60_000);
});
