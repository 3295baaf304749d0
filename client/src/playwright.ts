import { expect as baseExpect, test as base } from '@playwright/test';
import { TempmailClient, type ClientOptions } from './client';
import { WaitTimeoutError } from './errors';
import { extractCode, extractLink } from './extract';
import type { Email, Message } from './types';
import type { MessageMatch } from './wait-for-message';

/** A fresh address of one test, with the waits a test needs. */
export class Inbox {
  constructor(
    readonly client: TempmailClient,
    readonly email: Email,
  ) {}

  get id(): string {
    return this.email.id;
  }

  get address(): string {
    return this.email.address;
  }

  /** Waits for the first message that matches (default 30 s); see the client's waitForMessage for what it costs. */
  waitForMessage(match: MessageMatch = {}, options: { timeoutMs?: number; since?: Date } = {}): Promise<Message> {
    return this.client.waitForMessage(this.email.id, { ...options, match });
  }

  /** Waits for a matching message and returns its verification code; throws when it holds none. */
  async waitForCode(match: MessageMatch = {}, options: { timeoutMs?: number; since?: Date } = {}): Promise<string> {
    const message = await this.waitForMessage(match, options);
    return extractCode(message) ?? missing('code', message);
  }

  /** Waits for a matching message and returns its action link (entity-decoded); throws when it holds none. */
  async waitForLink(match: MessageMatch = {}, options: { timeoutMs?: number; since?: Date } = {}): Promise<string> {
    const message = await this.waitForMessage(match, options);
    return extractLink(message) ?? missing('link', message);
  }
}

function missing(what: string, message: Message): never {
  throw new Error(`The message ${message.id} (${JSON.stringify(message.subject)}) holds no ${what}`);
}

export interface TempmailFixtures {
  /** A fresh inbox for this test alone (one charged create). */
  inbox: Inbox;
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
    const apiKey = tempmailOptions.apiKey ?? process.env.TEMPMAIL_API_KEY;
    if (!apiKey) throw new Error('Set TEMPMAIL_API_KEY (or tempmailOptions.apiKey) for the tempmail fixture');
    await use(new TempmailClient({ baseUrl: process.env.TEMPMAIL_BASE_URL ?? 'http://127.0.0.1:3000', ...tempmailOptions, apiKey }));
  },
  inbox: async ({ tempmail, tempmailInbox }, use) => {
    await use(new Inbox(tempmail, await tempmail.createEmail(tempmailInbox)));
  },
});

/**
 * Playwright's `expect` with `toHaveReceived(match, { timeout })`: passes once a matching
 * message has arrived at the inbox (polling as `waitForMessage` does), and fails with the
 * subjects that did arrive.
 */
export const expect = baseExpect.extend({
  async toHaveReceived(inbox: Inbox, match: MessageMatch = {}, options: { timeout?: number } = {}) {
    const name = 'toHaveReceived';
    try {
      const message = await inbox.waitForMessage(match, { timeoutMs: options.timeout ?? 30_000 });
      return { pass: true, name, message: () => `expected ${inbox.address} not to receive a matching message, got ${JSON.stringify(message.subject)}` };
    } catch (error) {
      if (!(error instanceof WaitTimeoutError)) throw error;
      return { pass: false, name, message: () => error.message };
    }
  },
});
