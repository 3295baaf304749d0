import { expect as baseExpect, test as base } from '@playwright/test';
import { TempmailClient, type ClientOptions } from './client';
import { WaitTimeoutError } from './errors';
import { failureReport, failureReportText } from './failure-report';
import { Inbox } from './inbox';
import type { MessageMatch, WaitOptions } from './wait-for-message';

export { Inbox };

/** Kept free of the test's own time-out, so that the wait's clearer error is the one reported. */
const MARGIN_MS = 1_000;

export interface TempmailFixtures {
  /** A fresh inbox for this test alone (one charged create). */
  inbox: Inbox<TempmailClient>;
  /** The client the inbox uses, for anything else. */
  tempmail: TempmailClient;
}

export interface TempmailOptions {
  /** Client options; by default the API key and address come from TEMPMAIL_API_KEY and TEMPMAIL_BASE_URL. */
  tempmailOptions: Partial<ClientOptions>;
  /** The body of each test's create (`{ domain }` to pick a domain). */
  tempmailInbox: { local_part?: string; domain?: string };
}

/**
 * Playwright's `test` with an `inbox` fixture: every test gets its own fresh address.
 *
 * @example
 * import { test, expect } from '@tempmail/client/playwright';
 * test('sign up', async ({ page, inbox }) => {
 *   await page.getByLabel('Email').fill(inbox.address);
 *   await page.getByRole('button', { name: 'Sign up' }).click();
 *   await page.getByLabel('Code').fill(await inbox.waitForCode({ subject: /verify/i }));
 *   await expect(inbox).toHaveReceived({ subject: /welcome/i });
 * });
 */
export const test = base.extend<TempmailFixtures & TempmailOptions>({
  tempmailOptions: [{}, { option: true }],
  tempmailInbox: [{}, { option: true }],
  tempmail: async ({ tempmailOptions }, use) => {
    await use(new TempmailClient(tempmailOptions));
  },
  inbox: async ({ tempmail, tempmailInbox }, use, testInfo) => {
    const started = Date.now();
    const teardown = new AbortController();
    // The test's time left: a wait never outlives its test, and is aborted when the test ends.
    const defaults = (): Omit<WaitOptions, 'match'> =>
      testInfo.timeout > 0 ? { signal: teardown.signal, timeoutMs: Math.max(1, testInfo.timeout - (Date.now() - started) - MARGIN_MS) } : { signal: teardown.signal };
    const email = await tempmail.createEmail(tempmailInbox, { signal: teardown.signal });
    const inbox = new Inbox(tempmail, email, defaults);
    try {
      await use(inbox);
    } finally {
      teardown.abort(new Error('The test ended'));
      // A failed test's report carries its inbox: what came and what the waits returned (one more charged request, counted).
      const failed = testInfo.status === 'failed' || testInfo.status === 'timedOut';
      const reported = failed ? await failureReport(inbox) : undefined;
      // What the test cost, on the test's output and as an annotation: each is a charged request (a free plan has 100 for life).
      const spent = 1 + inbox.requests + (reported?.requests ?? 0);
      const parts = `(1 create, ${inbox.requests} by waits and marks${reported ? `, ${reported.requests} by the failure report` : ''})`;
      testInfo.annotations.push({ type: 'tempmail requests', description: String(spent) });
      console.log(`tempmail: ${spent} requests spent by "${testInfo.title}" ${parts}`);
      if (reported) {
        await testInfo.attach('tempmail inbox', { body: JSON.stringify({ ...reported.report, requests: spent }, null, 2), contentType: 'application/json' });
        await testInfo.attach('tempmail inbox.txt', { body: failureReportText(reported.report, `requests: ${spent} ${parts}`), contentType: 'text/plain' });
      }
    }
  },
});

/**
 * Playwright's `expect` with `toHaveReceived(match, { timeout, after, since })`: passes once a
 * new matching message has arrived at the inbox (polling as `waitForMessage` does), with
 * `expect`'s time-out unless one is given, and keeps the message so that the next wait of the
 * inbox returns it without a request. Fails with the subjects that did arrive.
 */
export const expect = baseExpect.extend({
  async toHaveReceived(inbox: Inbox, match: MessageMatch = {}, options: { timeout?: number } & Pick<WaitOptions, 'after' | 'since' | 'maxRequests'> = {}) {
    const name = 'toHaveReceived';
    const { timeout, ...rest } = options;
    try {
      const message = await inbox.receive(match, { ...rest, timeoutMs: timeout ?? this.timeout });
      return { pass: true, name, message: () => `expected ${inbox.address} not to receive a matching message, got ${JSON.stringify(message.subject)}` };
    } catch (error) {
      if (!(error instanceof WaitTimeoutError)) throw error;
      return { pass: false, name, message: () => error.message };
    }
  },
});
