import type { Browser } from 'playwright-core';
import { distinctHtml, MailRenderer, mailAndReadBack, renderAllWays } from '../support/browser-proof';
import { launchChromium } from '../support/chromium';
import { startTestService, type TestService } from '../support/local-service';
import { loadXssCorpus } from '../support/xss-corpus';

const corpus = loadXssCorpus();

let service: TestService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchChromium()]);
});
afterAll(async () => {
  await Promise.all([service?.close(), browser?.close()]);
});

describe('sanitized HTML of the third-party corpus in Chromium', () => {
  it('mails the 433 payloads, reads them back through /v1, renders them three ways, clicks everything: nothing runs, reports or leaves', async () => {
    expect(corpus).toHaveLength(433);
    const started = Date.now();
    const sanitized = await mailAndReadBack(
      service,
      corpus.map(({ id, payload }) => [id, payload]),
    );
    const mailed = Date.now();
    const renderer = await MailRenderer.open(browser);
    await renderAllWays(renderer, sanitized);
    await renderer.close();
    process.stdout.write(
      `browser proof, corpus: ${sanitized.length} payloads (${distinctHtml(sanitized).length} distinct sanitized HTML), ${renderer.counts.renders} renders, ${renderer.counts.clicks} clicks, ` +
        `${renderer.counts.events} dispatched events, ${renderer.counts.inPageLinks} in-page links (${renderer.counts.inPageTargets} reaching their target), ` +
        `${renderer.contentRequests.length} content requests (images, links), ` +
        `${renderer.incidents.length} incidents; mail ${mailed - started} ms, browser ${Date.now() - mailed} ms\n`,
    );
    expect(renderer.incidents.map(({ kind, detail, during }) => `${kind}: ${detail} [${during.slice(0, 100)}]`)).toEqual([]);
    expect(renderer.waysMissing(sanitized)).toEqual([]);
    expect(renderer.counts.renders).toBe(3 * distinctHtml(sanitized).length);
  }, 280_000);
});
