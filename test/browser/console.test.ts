import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { localTableNames } from '../../lambdas/adapters/dynamodb/table-definitions';
import { launchChromium } from '../support/chromium';
import { startTestService, type TestService } from '../support/local-service';
import { sendMail } from '../support/smtp-client';

/** Where the screenshot of docs/console.md is written. */
const screenshotPath = join(__dirname, '..', '..', 'docs', 'console.png');

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every request the page or its frames made, and every dialog a script opened. */
const requests: string[] = [];
const dialogs: string[] = [];
/** Each run starts on fresh in-memory storage, so this identity is new every time. */
const email = 'ada@example.test';

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

async function accountCount(): Promise<number> {
  const client = createDocumentClient({ endpoint: service.runtime.dynamodbEndpoint });
  const result = await client.send(new ScanCommand({ TableName: localTableNames().accounts, Select: 'COUNT' }));
  client.destroy();
  return result.Count ?? 0;
}

/** Signs in from the console; the issuer asks for the email only when it has no session yet. */
async function signInThroughTheConsole(): Promise<void> {
  await page.goto(service.runtime.consoleUrl);
  await page.getByRole('button', { name: 'Sign in or sign up' }).click();
  await page.waitForSelector('#usage-title, #email');
  if (await page.locator('#email').count()) {
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Sign in or sign up' }).click();
    await page.waitForSelector('#usage-title');
  }
}

/** The key shown once: read from the page right after creating it. */
let apiKey = '';

describe('the console in Chromium', () => {
  it('serves every page with a strict CSP and refuses to be framed', async () => {
    const response = await page.goto(service.runtime.consoleUrl);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBe('DENY');
    const script = await page.request.get(new URL('app.js', service.runtime.consoleUrl).href);
    expect((await script.body()).length).toBeLessThan(100 * 1024);
  });

  it('signs a new person up at the local issuer, whose page says it is local, and opens exactly one free account', async () => {
    const before = await accountCount();
    await page.goto(service.runtime.consoleUrl);
    await page.getByRole('button', { name: 'Sign in or sign up' }).click();
    await page.waitForURL(/\/oidc\/interaction\//);
    await containsText(page.getByRole('note'), 'Local identity provider');
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Sign in or sign up' }).click();
    await page.waitForSelector('#usage-title');
    expect(await page.textContent('#plan')).toBe('free');
    expect(await page.textContent('#remaining')).toBe('100');
    expect(page.url()).toBe(service.runtime.consoleUrl);

    await signInThroughTheConsole();
    expect(await accountCount()).toBe(before + 1);
  });

  it('creates a key and shows it exactly once, never in storage or the address bar', async () => {
    await page.click('a[href="#keys"]');
    await page.getByLabel('Label for a new key').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForSelector('#new-key-value');
    apiKey = (await page.textContent('#new-key-value'))!;
    expect(apiKey).toMatch(/^tm_local_[A-Za-z0-9_-]{43}$/);
    await containsText(page.locator('#new-key'), 'shown only this once');
    await containsText(page.locator('#keys'), 'browser test');

    const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
    expect(storage).not.toContain(apiKey);
    expect(storage).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    expect(page.url()).not.toContain(apiKey);

    await page.click('a[href="#usage"]');
    await page.click('a[href="#keys"]');
    await page.waitForSelector('#keys');
    expect(await page.content()).not.toContain(apiKey);
  });

  it('shows the usage change after the key is used against /v1', async () => {
    expect((await service.request('/v1/domains', { key: apiKey })).status).toBe(200);
    await page.click('a[href="#usage"]');
    await page.waitForSelector('#used');
    expect(await page.textContent('#used')).toBe('1');
    expect(await page.textContent('#remaining')).toBe('99');
    await page.click('a[href="#keys"]');
    await page.waitForSelector('#keys tbody tr');
    expect(await page.textContent('#keys tbody tr .last-used')).not.toBe('—');
  });

  it('reads a hostile mail through /v1: nothing in it runs, navigates or submits', async () => {
    const created = await service.createEmail(apiKey, { local_part: `hostile-${Date.now()}` });
    const address = ((await created.json()) as { data: { address: string } }).data.address;
    const trap = `${service.runtime.apiUrl}/trap`;
    await sendMail(service.runtime.smtpPort, {
      from: 'attacker@example.org',
      to: address,
      subject: 'Hostile mail',
      text: 'Plain text part',
      html: `<p id="greeting">Hello</p>
        <script>top.__pwned = 'script'; fetch('${trap}/script')</script>
        <img src="x" onerror="top.__pwned='onerror'">
        <a id="js-link" href="javascript:top.__pwned='link'">javascript link</a>
        <a id="top-link" href="${trap}/link" target="_top">plain link</a>
        <form action="${trap}/form" method="post"><input name="q" value="1"><button id="submit">Send</button></form>
        <iframe src="${trap}/frame"></iframe>
        <meta http-equiv="refresh" content="0;url=${trap}/refresh">
        <svg onload="top.__pwned='svg'"><a href="javascript:alert(1)"><text y="20">svg link</text></a></svg>`,
      attachments: [{ filename: '../../evil.html', content: '<script>alert(1)</script>' }],
    });

    await page.goto(service.runtime.consoleUrl);
    // The key is in memory only: a fresh page must be given it again.
    await signInThroughTheConsole();
    await page.click('a[href="#inboxes"]');
    await page.getByLabel('API key to read mail with (kept in memory only)').fill(apiKey);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('link', { name: address }).click();
    await page.getByRole('link', { name: 'Hostile mail' }).click();
    await page.waitForSelector('#mail-html');
    await containsText(page.locator('.cost'), 'cost 1 request');

    const frameElement = page.locator('#mail-html');
    expect(await frameElement.getAttribute('sandbox')).toBe('');
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    await frame.getByText('Hello').waitFor();
    const consoleUrl = page.url();
    // What the sanitizer left is still clicked: the plain link and the SVG text at least.
    expect(await frame.locator('a').count()).toBeGreaterThan(0);
    for (const selector of ['a', 'button', 'svg a']) {
      for (const element of await frame.locator(selector).all()) await element.click({ force: true, timeout: 2000 }).catch(() => undefined);
    }
    // Let anything a click may have started reach the network before looking.
    await page.waitForLoadState('networkidle');

    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    expect(page.url()).toBe(consoleUrl);
    expect(frame.url()).toBe('about:srcdoc');
    expect(page.frames()).toHaveLength(2);
    expect(requests.filter((url) => url.startsWith(trap))).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await page.textContent('#mail-text')).toContain('Plain text part');
    await page.getByRole('button', { name: 'Download raw source' }).waitFor({ state: 'visible' });

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /Download .*evil\.html/ }).click();
    expect((await download).suggestedFilename()).not.toContain('/');
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.click('a[href="#keys"]');
    await page.waitForSelector('#keys');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('revokes the key after a confirmation; /v1 then answers 401', async () => {
    await page.click('a[href="#usage"]');
    await page.waitForSelector('#used');
    await mkdir(join(__dirname, '..', '..', 'docs'), { recursive: true });
    await page.screenshot({ path: screenshotPath, fullPage: true });

    await page.click('a[href="#keys"]');
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await containsText(page.getByRole('dialog'), 'cannot be undone');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForSelector('#keys tbody tr:has-text("revoked")');
    expect((await service.request('/v1/usage', { key: apiKey })).status).toBe(401);
  });
});

/** Waits for a locator and checks its text (playwright-core has no test runner of its own). */
async function containsText(locator: Locator, text: string): Promise<void> {
  await locator.waitFor();
  expect(await locator.textContent()).toContain(text);
}
