import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, installed by `test/support/ensure-chromium.sh` (never a browser download). */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Launches headless Chromium for a browser suite. The flags keep it off the network: this
 * service's tests talk to loopback only, and Chromium's own background fetches would be refused.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
