import { chromium, type Browser } from 'playwright-core';
import { realClockEnvironment } from './real-clock';

/** Debian's Chromium, installed by `test/support/ensure-system-packages.sh` (never a browser download). */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Launches headless Chromium for a browser suite. The flags keep it off the network: this
 * service's tests talk to loopback only, and Chromium's own background fetches would be refused.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // The browser keeps the real clock when a test run shifts its own (test/support/shifted-clock.sh):
    // Chromium under libfaketime slows to a crawl, and a browser whose clock differs from the
    // service's by a year is a fair test of the console, which must never compare the two.
    env: realClockEnvironment(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      // A new document for every navigation (RenderDocument) and the back-forward cache made each
      // page load of the browser proofs cost about 110 ms of Chromium's processor time, 60 ms
      // without them; neither changes what a page may do, and no suite goes back or forward.
      '--disable-features=RenderDocument,BackForwardCache',
    ],
  });
}
