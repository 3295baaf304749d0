import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { localTableNames } from '../../lambdas/adapters/dynamodb/table-definitions';
import { localConsoleClientId } from '../../local/local-oidc-issuer';
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
/** Whom the console names for more requests (the operator's configuration). */
const supportContact = 'billing@operator.example';
/** Every answer of 400 or more to the page, which a favicon 404 would show. */
const failures: string[] = [];
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe's serious and critical findings on the page as it stands (the mail frame is the sender's). */
async function seriousAxeFindings(on: Page = page): Promise<string[]> {
  return on.evaluate<string[]>(`${axeSource};
    axe.run({ exclude: [['#mail-html']] }, { iframes: false, resultTypes: ['violations'] }).then((result) =>
      result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

beforeAll(async () => {
  service = await startTestService({ supportContact });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on('request', (request) => requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
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

/**
 * A page of a tab that was signed in goes on to the issuer and back on its own (the silent
 * restore), so its first load may never come: a navigation is done once the page is committed,
 * and the test then waits for what the console shows once it has settled.
 */
const afterRestore = { waitUntil: 'commit' } as const;

/**
 * Opens the console signed in: a tab that was signed in is restored without a prompt; otherwise
 * the issuer asks for the email only when it has no session yet.
 */
async function signInThroughTheConsole(): Promise<void> {
  await page.goto(service.runtime.consoleUrl, afterRestore);
  await page.waitForSelector('#usage-title, #sign-in');
  if (await page.locator('#usage-title').count()) return;
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

  it('signed out, shows only the sign-in: no sections, no sign-out, no 404 (favicon), no outline on the main box', async () => {
    await page.goto(service.runtime.consoleUrl);
    await page.getByRole('button', { name: 'Sign in or sign up' }).waitFor();
    expect(await page.locator('#nav').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.evaluate<string>("getComputedStyle(document.getElementById('app')).outlineStyle")).toBe('none');
    expect(await page.evaluate<boolean>("document.activeElement === document.getElementById('app')")).toBe(true);
    expect(await page.locator('link[rel="icon"]').count()).toBe(1);
    expect(failures).toEqual([]);
    expect(await seriousAxeFindings()).toEqual([]);
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

  it("survives a reload: the issuer's session restores it without a prompt, and no token is stored", async () => {
    await page.goto(`${service.runtime.consoleUrl}#keys`, afterRestore);
    await page.waitForSelector('#usage-title, #keys-title');
    const asked = requests.length;
    await page.reload(afterRestore);
    await page.waitForSelector('#keys-title');
    expect(requests.slice(asked).some((url) => url.includes('/oidc/auth') && url.includes('prompt=none'))).toBe(true);
    expect(page.url()).toBe(`${service.runtime.consoleUrl}#keys`);
    const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
    expect(storage).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    // A new account has no key yet, and the table says so.
    await containsText(page.locator('#keys tbody'), 'No keys yet');
    expect(await seriousAxeFindings()).toEqual([]);
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
    // Getting started: snippets that use this key and this service's base URL.
    const origin = new URL(service.runtime.consoleUrl).origin;
    for (const id of ['curl', 'typescript', 'cli', 'playwright']) await page.locator(`#snippet-${id}`).waitFor();
    for (const id of ['curl', 'cli']) {
      expect(await page.textContent(`#snippet-${id}`)).toContain(`export TEMPMAIL_API_KEY='${apiKey}'\nexport TEMPMAIL_BASE_URL='${origin}'`);
    }
    expect(await page.textContent('#snippet-curl')).toContain('"$TEMPMAIL_BASE_URL/v1/emails"');
    expect(await page.textContent('#snippet-typescript')).toContain("from '@tempmail/client'");
    expect(await page.textContent('#snippet-playwright')).toContain("from '@tempmail/client/playwright'");
    expect(await seriousAxeFindings()).toEqual([]);

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
        <a id="jump" href="#bottom">Jump to the end</a>
        <script>top.__pwned = 'script'; fetch('${trap}/script')</script>
        <img src="x" onerror="top.__pwned='onerror'">
        <a id="js-link" href="javascript:top.__pwned='link'">javascript link</a>
        <a id="top-link" href="${trap}/link" target="_top">plain link</a>
        <form action="${trap}/form" method="post"><input name="q" value="1"><button id="submit">Send</button></form>
        <iframe src="${trap}/frame"></iframe>
        <meta http-equiv="refresh" content="0;url=${trap}/refresh">
        <svg onload="top.__pwned='svg'"><a href="javascript:alert(1)"><text y="20">svg link</text></a></svg>
        <div style="height:3000px"></div><p id="bottom">The end</p>`,
      attachments: [{ filename: '../../evil.html', content: '<script>alert(1)</script>' }],
    });

    await page.goto(service.runtime.consoleUrl, afterRestore);
    // The key is in memory only: a fresh page must be given it again.
    await signInThroughTheConsole();
    await page.click('a[href="#inboxes"]');
    // Opening an inbox without a key says why nothing opened, and opens it once a key is given.
    await page.getByRole('link', { name: address }).click();
    await containsText(page.locator('#key-needed'), 'give an API key first');
    await page.getByLabel('API key to read mail with (kept in memory only)').fill(apiKey);
    await page.getByRole('button', { name: 'Use key' }).click();
    await containsText(page.locator('#inbox-title'), `Messages to ${address}`);
    expect(await seriousAxeFindings()).toEqual([]);
    await page.getByRole('link', { name: 'Hostile mail' }).click();
    await page.waitForSelector('#mail-html');
    await containsText(page.locator('.cost').first(), 'cost 1 request');

    const frameElement = page.locator('#mail-html');
    expect(await frameElement.getAttribute('sandbox')).toBe('');
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    await frame.getByText('Hello').waitFor();
    const consoleUrl = page.url();
    // An in-page link cannot load the console inside the frame: it is shown as text, and clicking it loads nothing.
    const beforeJump = requests.length;
    // The click waits for any navigation it schedules.
    await frame.getByText('Jump to the end').click();
    expect(frame.url()).toBe('about:srcdoc');
    expect(requests.slice(beforeJump)).toEqual([]);
    expect(failures.filter((failure) => !failure.includes('/oidc/'))).toEqual([]);
    expect(await seriousAxeFindings()).toEqual([]);
    // What the sanitizer left is still clicked: the plain link and the SVG text at least.
    expect(await frame.locator('a').count()).toBeGreaterThan(0);
    for (const selector of ['a', 'button', 'svg a']) {
      for (const element of await frame.locator(selector).all()) await element.click({ force: true, timeout: 2000 }).catch(() => undefined);
    }
    // Each click waited for the navigations it scheduled; a round trip after them is the barrier for any request they started.
    await page.evaluate('fetch("config.json")');

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

  it('creates inboxes through /v1 with the key in memory, charged and said so, and keeps each inbox at hand', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(service.runtime.consoleUrl).origin });
    await page.click('a[href="#inboxes"]');
    await page.getByLabel('Local part (optional)').fill('made-in-console');
    await page.getByRole('button', { name: 'Create inbox' }).click();
    const address = 'made-in-console@tempmail.localhost';
    await containsText(page.locator('#create-inbox-outcome'), `Created ${address}. That cost 1 request. Remaining: `);
    const remaining = /Remaining: (\d+)/.exec((await page.textContent('#create-inbox-outcome'))!)![1];
    await page.getByRole('button', { name: 'Create inbox' }).click();
    await page.locator('#create-inbox-outcome').filter({ hasText: /Created [a-z0-9._-]+@tempmail\.localhost/ }).filter({ hasNotText: 'made-in-console' }).waitFor();
    await page.click('a[href="#usage"]');
    await page.waitForSelector('#remaining');
    expect(Number(await page.textContent('#remaining'))).toBe(Number(remaining) - 1);

    await page.click('a[href="#inboxes"]');
    await page.getByRole('link', { name: address }).first().click();
    await containsText(page.locator('#inbox-title'), address);
    await containsText(page.locator('#inbox-summary'), '0 messages');
    await page.getByRole('button', { name: 'Copy address' }).click();
    await containsText(page.getByRole('button', { name: 'Copied' }), 'Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(address);
    expect(await seriousAxeFindings()).toEqual([]);

    await sendMail(service.runtime.smtpPort, {
      from: 'shop@example.org',
      to: address,
      subject: 'First',
      text: 'Your verification code is 482913\n\nConfirm your address: https://shop.example.org/verify?t=abc\n\nUnsubscribe: https://shop.example.org/unsubscribe',
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('#inbox-summary', { hasText: '1 message · newest' }).waitFor();

    // Auto-refresh on the page's clock: one look per interval while visible, none while hidden.
    await page.clock.install();
    await containsText(page.locator('label[for="auto-refresh"]'), '6 requests a minute');
    await page.getByLabel(/Refresh every 10 seconds/).check();
    await sendMail(service.runtime.smtpPort, { from: 'shop@example.org', to: address, subject: 'Second', text: 'two' });
    await page.clock.runFor(10_000);
    await page.locator('#inbox-summary', { hasText: '2 messages' }).waitFor();
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true }); document.dispatchEvent(new Event('visibilitychange'))`);
    const looked = requests.filter((url) => url.includes('/messages')).length;
    await page.clock.runFor(60_000);
    // A round trip after the clock ran: a look the timers started would have been requested before it.
    await page.evaluate('fetch("config.json")');
    expect(requests.filter((url) => url.includes('/messages')).length).toBe(looked);
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true }); document.dispatchEvent(new Event('visibilitychange'))`);
    const resumed = page.waitForRequest((request) => request.url().includes('/messages'));
    await page.clock.runFor(10_000);
    await resumed;

    // The message: the code and first link by the client package's rules, and its views as tabs.
    await page.getByRole('link', { name: 'First' }).click();
    expect(await page.textContent('#extracted-code')).toBe('482913');
    expect(await page.textContent('#extracted-link')).toBe('https://shop.example.org/verify?t=abc');
    await page.getByRole('button', { name: 'Copy code' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe('482913');
    // A text-only mail opens on its text.
    expect(await page.getAttribute('#tab-text', 'aria-selected')).toBe('true');
    expect(await page.locator('#mail-text').isVisible()).toBe(true);
    const sourceReads = () => requests.filter((url) => url.includes('/source')).length;
    expect(sourceReads()).toBe(0);
    await page.getByRole('tab', { name: 'Headers' }).click();
    await page.locator('#mail-headers', { hasText: 'Subject: First' }).waitFor();
    expect(await page.textContent('#mail-headers')).not.toContain('verification code');
    // Arrow keys move between the tabs.
    await page.getByRole('tab', { name: 'Headers' }).press('ArrowRight');
    expect(await page.getAttribute('#tab-source', 'aria-selected')).toBe('true');
    await page.locator('#mail-source', { hasText: 'Your verification code is 482913' }).waitFor();
    expect(await page.locator('#mail-headers').isVisible()).toBe(false);
    expect(sourceReads()).toBe(1);
    await containsText(page.locator('#panel-source .cost'), '1 request');
    expect(await seriousAxeFindings()).toEqual([]);
    // The screenshot of docs/console.md: a message on its text, with the code and link found.
    await page.getByRole('tab', { name: 'Text' }).click();
    await mkdir(join(__dirname, '..', '..', 'docs'), { recursive: true });
    await page.screenshot({ path: screenshotPath, fullPage: true });
    await page.click('a[href="#inboxes"]');
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.click('a[href="#keys"]');
    await page.waitForSelector('#keys');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('revokes the key after a confirmation; /v1 then answers 401', async () => {
    await page.click('a[href="#keys"]');
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await containsText(page.getByRole('dialog'), 'cannot be undone');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForSelector('#keys tbody tr:has-text("revoked")');
    expect((await service.request('/v1/usage', { key: apiKey })).status).toBe(401);
  });

  it('warns before the allowance runs out, and says what the plan means and whom to ask when it has', async () => {
    await page.click('a[href="#keys"]');
    await page.getByLabel('Label for a new key').fill('spender');
    await page.getByRole('button', { name: 'Create key' }).click();
    const spender = (await page.locator('#new-key-value').textContent())!;
    expect((await service.createEmail(spender, { local_part: `spender-${Date.now()}` })).status).toBe(201);
    const spend = async (until: number) => {
      while (Number((await service.request('/v1/domains', { key: spender })).headers.get('ratelimit-remaining')) > until);
    };
    await spend(5);
    await page.click('a[href="#usage"]');
    await containsText(page.locator('#allowance-notice'), 'Only 5 requests left.');
    await containsText(page.locator('#allowance-notice'), 'never renews');
    await containsText(page.locator('#allowance-notice'), supportContact);
    expect(await seriousAxeFindings()).toEqual([]);

    await spend(0);
    await page.click('a[href="#keys"]');
    await page.click('a[href="#usage"]');
    await containsText(page.getByRole('alert'), 'used up');
    await containsText(page.locator('#allowance-notice'), supportContact);
    // Reading an inbox now answers 429: the page says the same, not just "Back".
    // The key just created is the one the page reads with (in memory).
    await page.click('a[href="#inboxes"]');
    await page.locator('#inboxes a').first().click();
    await containsText(page.locator('#more-requests'), supportContact);
    await page.getByRole('link', { name: 'See your usage' }).waitFor();
  });

  it('signs out at the issuer too, in one step as at Cognito: the next sign-in asks again, and a reload does not sign back in', async () => {
    const before = requests.length;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(service.runtime.consoleUrl);
    const logout = requests.slice(before).find((url) => new URL(url).pathname === '/oidc/logout');
    expect(Object.fromEntries(new URL(logout!).searchParams)).toEqual({ client_id: localConsoleClientId, logout_uri: service.runtime.consoleUrl });
    await page.getByRole('button', { name: 'Sign in or sign up' }).waitFor();
    expect(await page.locator('#nav').isVisible()).toBe(false);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in or sign up' }).click();
    await page.waitForURL(/\/oidc\/interaction\//);
    await page.getByLabel('Email address').waitFor();
    // A tab that thinks it was signed in tries silently, and the issuer's "no session" lands on the button.
    await page.goto(service.runtime.consoleUrl);
    await page.evaluate("sessionStorage.setItem('tempmail.console.signed-in', '1')");
    // A new navigation rather than a reload: a reload of a page that is itself leaving fails in
    // Chromium ("Not attached to an active page"); a navigation supersedes whatever is under way.
    // The page's own silent sign-in may in turn supersede this one before Playwright sees it commit
    // (net::ERR_ABORTED): what matters is where it lands, asserted below.
    await page.goto(service.runtime.consoleUrl, afterRestore).catch((error: Error) => {
      if (!error.message.includes('net::ERR_ABORTED')) throw error;
    });
    await page.getByRole('button', { name: 'Sign in or sign up' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(requests.some((url) => url.includes('error=login_required'))).toBe(true);
  });
});

describe('the API reference in Chromium', () => {
  it('renders from its own stylesheet under its CSP, with no violation and no other request, passes axe and fits a phone', async () => {
    const reference = await context.newPage();
    const loaded: string[] = [];
    const console_: string[] = [];
    reference.on('request', (request) => loaded.push(request.url()));
    reference.on('console', (message) => console_.push(`${message.type()}: ${message.text()}`));
    const response = await reference.goto(`${service.runtime.apiUrl}/docs`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    // The stylesheet applied (the two-column layout), and nothing else was asked for.
    expect(await reference.evaluate<string>('getComputedStyle(document.body).display')).toBe('grid');
    expect(loaded).toEqual([`${service.runtime.apiUrl}/docs`, `${service.runtime.apiUrl}/docs/reference.css`]);
    expect(await reference.getByRole('heading', { level: 3, name: 'POST /v1/emails' }).isVisible()).toBe(true);
    expect(await seriousAxeFindings(reference)).toEqual([]);
    await reference.setViewportSize({ width: 375, height: 740 });
    expect(await reference.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    // A CSP violation or a failed load is reported on the console.
    expect(console_).toEqual([]);
    await reference.close();
  });
});

/** Waits for a locator and checks its text (playwright-core has no test runner of its own). */
async function containsText(locator: Locator, text: string): Promise<void> {
  await locator.waitFor();
  expect(await locator.textContent()).toContain(text);
}
