import { extractCode, extractLink } from '../../client/src/extract';
import { ApiFailure, download, json, lastRemaining, text } from './api';
import { h, show, when } from './dom';
import { beginSignIn, claims, completeSignIn, signOutUrl, wasSignedIn, type ConsoleConfig } from './oidc';

interface Account {
  id: string;
  email: string | null;
  plan: string;
  allowance_mode: string;
  used_requests: number;
  remaining_requests: number;
  additional_requests: number;
}
interface Key {
  id: string;
  label: string;
  prefix: string;
  status: string;
  created_at: string;
  last_used_at: string | null;
}
interface Email {
  id: string;
  address: string;
  status: string;
  created_at: string;
  expires_at: string;
}
interface Page<T> {
  data: T[];
  pagination: { has_more: boolean; next_cursor?: string };
}
interface MessageItem {
  id: string;
  from: string;
  subject: string;
  received_at: string;
}
interface Message extends MessageItem {
  email_id: string;
  text: string;
  html: string;
  source_path: string;
  attachments: { id: string; filename: string; size_bytes: number; download_path: string }[];
}

/**
 * Everything secret lives here, in memory only: never in storage, never in a URL. The session ends
 * when the token's lifetime (`exp` − `iat`) has passed since the page received it, on the page's
 * monotonic clock: a computer whose wall clock is wrong neither ends it at once nor keeps it on.
 */
const session: { token?: string; key?: string; endsAt?: number } = {};
let config: ConsoleConfig;
/** Addresses by inbox id, from the listings this page has made (never an extra request). */
const addresses = new Map<string, string>();

const costNote = (text: string) => h('p', { class: 'cost' }, text);

async function boot(): Promise<void> {
  config = (await (await fetch('config.json', { cache: 'no-store' })).json()) as ConsoleConfig;
  document.getElementById('sign-out')!.addEventListener('click', () => {
    session.token = undefined;
    session.key = undefined;
    // The issuer's session ends too: otherwise the next "Sign in" lands in this account unasked.
    void signOutUrl(config).then((url) => location.assign(url));
  });
  window.addEventListener('hashchange', () => {
    autoRefresh.stop();
    void route();
  });
  try {
    session.token = await completeSignIn(config);
    if (session.token) {
      const { iat, exp } = claims(session.token);
      session.endsAt = performance.now() + (Number(exp) - Number(iat)) * 1000;
    }
  } catch (error) {
    return signInScreen((error as Error).message);
  }
  if (!session.token && wasSignedIn()) {
    // A reload: the token went with the page; the issuer's own session restores it, without a prompt.
    show(h('p', { role: 'status' }, 'Restoring your session…'));
    return beginSignIn(config, true);
  }
  if (!session.token) return signInScreen();
  await route();
}

function signInScreen(problem?: string): void {
  document.getElementById('nav')!.hidden = true;
  show(
    h(
      'section',
      {},
      h('h1', {}, 'Sign in'),
      h('p', {}, 'Sign in, or create an account: a new account starts on the free plan with 100 requests for life.'),
      problem ? h('p', { class: 'problem', role: 'alert' }, problem) : null,
      h('button', { type: 'button', id: 'sign-in', onclick: () => void beginSignIn(config) }, 'Sign in or sign up'),
    ),
  );
}

async function route(): Promise<void> {
  if (!session.token) return signInScreen();
  if (!(performance.now() < (session.endsAt ?? 0))) return signInScreen('Your session ended. Sign in again.');
  document.getElementById('nav')!.hidden = false;
  try {
    const [view, id] = location.hash.slice(1).split('/');
    if (view === 'keys') return await keysScreen();
    if (view === 'inboxes') return await inboxesScreen();
    if (view === 'inbox' && id) return await inboxScreen(id);
    if (view === 'message' && id) return await messageScreen(id);
    return await usageScreen();
  } catch (error) {
    if (error instanceof ApiFailure && error.failure.status === 401 && !location.hash.startsWith('#inbox') && !location.hash.startsWith('#message')) {
      return signInScreen('Your session ended. Sign in again.');
    }
    const exhausted = error instanceof ApiFailure && error.failure.status === 429 && /allowance/.test(error.failure.message);
    show(
      h('p', { class: 'problem', role: 'alert' }, error instanceof Error ? error.message : 'Something failed.'),
      exhausted ? moreRequests() : null,
      h('a', { href: '#usage' }, exhausted ? 'See your usage' : 'Back'),
    );
  }
}

async function usageScreen(): Promise<void> {
  const { data: account } = await json<{ data: Account }>('/console/v1/account', session.token!);
  const total = account.used_requests + account.remaining_requests;
  const percent = total === 0 ? 0 : Math.round((account.used_requests / total) * 100);
  const bar = h('div', { class: 'bar', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': String(total), 'aria-valuenow': String(account.used_requests), 'aria-label': 'Requests used' }, h('span', {}));
  (bar.firstChild as HTMLElement).style.width = `${percent}%`;
  show(
    h(
      'section',
      { 'aria-labelledby': 'usage-title' },
      h('h1', { id: 'usage-title' }, 'Usage'),
      h('p', {}, `Signed in as ${account.email ?? 'your account'} · plan `, h('strong', { id: 'plan' }, account.plan), ` (${account.allowance_mode === 'lifetime' ? 'lifetime allowance, never renews' : 'durable balance'})`),
      bar,
      h('p', {}, h('span', { id: 'used' }, String(account.used_requests)), ' used · ', h('span', { id: 'remaining' }, String(account.remaining_requests)), ' remaining', account.additional_requests ? ` · ${account.additional_requests} granted` : ''),
      allowanceNotice(account, total),
      costNote('This page is free: the console never charges your allowance. Reading mail in Inboxes goes through the API and is charged like any request.'),
    ),
  );
}

/** Warns while some requests are left (a tenth or less), and says what to do when none are. */
function allowanceNotice(account: Account, total: number): HTMLElement | null {
  const left = account.remaining_requests;
  if (left > Math.max(10, Math.ceil(total / 10))) return null;
  const plan =
    account.allowance_mode === 'lifetime'
      ? `The ${account.plan} plan's allowance is for the life of the account: it never renews on its own.`
      : `The ${account.plan} plan's balance goes down with each charged request and is not reset each month.`;
  return h(
    'div',
    { id: 'allowance-notice', class: 'notice', role: left === 0 ? 'alert' : 'status' },
    h('p', { class: 'warning' }, left === 0 ? 'Your request allowance is used up: the API answers 429 to every charged request.' : `Only ${left} requests left.`),
    h('p', {}, plan),
    moreRequests(),
  );
}

function moreRequests(): HTMLElement {
  return h('p', { id: 'more-requests' }, 'More requests are granted by the operator of this service: ', config.support ? h('strong', {}, config.support) : 'ask whoever gave you access', '.');
}

async function keysScreen(created?: { key: Key; secret: string }): Promise<void> {
  const { data: keys } = await json<{ data: Key[] }>('/console/v1/keys', session.token!);
  const label = h('input', { id: 'key-label', name: 'label', required: true, maxlength: '64', autocomplete: 'off' });
  const form = h(
    'form',
    { id: 'create-key', onsubmit: (event: Event) => void createKey(event, label.value) },
    h('label', { for: 'key-label' }, 'Label for a new key'),
    label,
    ' ',
    h('button', { type: 'submit' }, 'Create key'),
  );
  show(
    h('section', { 'aria-labelledby': 'keys-title' }, h('h1', { id: 'keys-title' }, 'API keys'), created ? newKeyPanel(created.secret) : null, created ? gettingStarted(created.secret) : null, form),
    h(
      'section',
      {},
      h(
        'table',
        { id: 'keys' },
        h('caption', {}, 'Your keys, newest first'),
        h('thead', {}, h('tr', {}, h('th', {}, 'Label'), h('th', {}, 'Key'), h('th', { class: 'optional' }, 'Created'), h('th', {}, 'Last used'), h('th', {}, 'Status'))),
        h('tbody', {}, ...(keys.length ? keys.map(keyRow) : [h('tr', {}, h('td', { colspan: '5' }, 'No keys yet. Create one above to call the API.'))])),
      ),
    ),
  );
}

function newKeyPanel(secret: string): HTMLElement {
  const copy = h('button', { type: 'button', class: 'secondary', id: 'copy-key', onclick: () => void navigator.clipboard?.writeText(secret).then(() => (copy.textContent = 'Copied')) }, 'Copy');
  return h(
    'div',
    { id: 'new-key', role: 'status' },
    h('p', { class: 'warning' }, 'Copy this key now. It is shown only this once; the service keeps only a hash of it.'),
    h('p', { class: 'secret', id: 'new-key-value' }, secret),
    copy,
    ' ',
    h('button', { type: 'button', class: 'secondary', id: 'use-key', onclick: () => { session.key = secret; location.hash = '#inboxes'; } }, 'Use it to read inboxes'),
  );
}

/**
 * Getting started with the key just created: the same first steps (create an inbox, wait for a
 * message) with curl, the TypeScript client, its command line and its Playwright fixture, with this
 * service's base URL filled in. Shown once, with the key, and kept nowhere.
 */
function gettingStarted(secret: string): HTMLElement {
  const base = location.origin;
  const env = `export TEMPMAIL_API_KEY='${secret}'\nexport TEMPMAIL_BASE_URL='${base}'`;
  const snippets: [string, string, string][] = [
    [
      'curl',
      'curl',
      `${env}\n\n# Create an inbox (1 request)\ncurl -sS -X POST "$TEMPMAIL_BASE_URL/v1/emails" \\\n  -H "Authorization: Bearer $TEMPMAIL_API_KEY" \\\n  -H "Idempotency-Key: $(uuidgen)" \\\n  -H "Content-Type: application/json" -d '{}'\n\n# List its messages (1 request each look)\ncurl -sS "$TEMPMAIL_BASE_URL/v1/emails/EMAIL_ID/messages" -H "Authorization: Bearer $TEMPMAIL_API_KEY"`,
    ],
    [
      'typescript',
      'TypeScript client',
      `// npm install @tempmail/client   (with the environment above)\nimport { TempmailClient, extractCode } from '@tempmail/client';\n\nconst tempmail = new TempmailClient({ apiKey: process.env.TEMPMAIL_API_KEY!, baseUrl: process.env.TEMPMAIL_BASE_URL! });\nconst inbox = await tempmail.createEmail();\n// … send a mail to inbox.address …\nconst message = await tempmail.waitForMessage(inbox.id, { timeoutMs: 30_000 });\nconsole.log(extractCode(message));`,
    ],
    ['cli', 'Command line', `${env}\n\nnpx tempmail inbox create\nnpx tempmail messages wait EMAIL_ID --timeout 60s --extract code`],
    [
      'playwright',
      'Playwright fixture',
      `// With the environment above: each test gets a fresh inbox (1 request).\nimport { test, expect } from '@tempmail/client/playwright';\n\ntest('sign up', async ({ page, inbox }) => {\n  await page.goto('https://app.example/signup');\n  await page.getByLabel('Email').fill(inbox.address);\n  await page.getByRole('button', { name: 'Sign up' }).click();\n  await expect(inbox).toHaveReceived({ subject: /confirm/i });\n});`,
    ],
  ];
  return h(
    'section',
    { id: 'getting-started', 'aria-labelledby': 'getting-started-title' },
    h('h2', { id: 'getting-started-title' }, 'Getting started with this key'),
    costNote('Each create and each read below is charged like any API request.'),
    ...snippets.map(([id, title, code]) => {
      const copy = h('button', { type: 'button', class: 'secondary', id: `copy-${id}`, 'aria-label': `Copy the ${title} snippet`, onclick: () => void navigator.clipboard?.writeText(code).then(() => (copy.textContent = 'Copied')) }, 'Copy');
      return h('div', { class: 'snippet' }, h('h3', {}, title, ' ', copy), h('pre', { class: 'mail-text', id: `snippet-${id}` }, code));
    }),
  );
}

function keyRow(key: Key): HTMLElement {
  const revoke = key.status === 'active' ? h('button', { type: 'button', class: 'danger', 'data-key': key.id, onclick: () => confirmRevoke(key) }, `Revoke`) : null;
  return h(
    'tr',
    { 'data-key-id': key.id },
    h('td', {}, key.label || '(operator key)'),
    h('td', {}, h('code', {}, `${key.prefix}…`)),
    h('td', { class: 'optional' }, when(key.created_at)),
    h('td', { class: 'last-used' }, when(key.last_used_at)),
    h('td', {}, key.status, ' ', revoke),
  );
}

async function createKey(event: Event, label: string): Promise<void> {
  event.preventDefault();
  try {
    const { data } = await json<{ data: Key & { api_key: string } }>('/console/v1/keys', session.token!, { method: 'POST', body: JSON.stringify({ label }) });
    session.key = data.api_key;
    await keysScreen({ key: data, secret: data.api_key });
  } catch (error) {
    document.getElementById('create-key')!.append(h('p', { class: 'problem', role: 'alert' }, (error as Error).message));
  }
}

function confirmRevoke(key: Key): void {
  const dialog = h(
    'dialog',
    { id: 'confirm-revoke', 'aria-labelledby': 'confirm-title' },
    h('h2', { id: 'confirm-title' }, `Revoke “${key.label || key.prefix}”?`),
    h('p', {}, 'Anything using this key gets 401 from then on. This cannot be undone.'),
    h('button', { type: 'button', class: 'danger', id: 'confirm-revoke-yes', onclick: () => void revoke(key, dialog) }, 'Revoke key'),
    ' ',
    h('button', { type: 'button', class: 'secondary', onclick: () => dialog.close() }, 'Cancel'),
  );
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

async function revoke(key: Key, dialog: HTMLDialogElement): Promise<void> {
  await json(`/console/v1/keys/${encodeURIComponent(key.id)}`, session.token!, { method: 'DELETE' });
  dialog.close();
  await keysScreen();
}

/** The inbox a reader opened before giving a key: opened once the key is given. */
let wanted: string | undefined;

async function inboxesScreen(cursor?: string): Promise<void> {
  const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
  const page = await json<Page<Email>>(`/console/v1/emails${query}`, session.token!);
  for (const email of page.data) addresses.set(email.id, email.address);
  const keyInput = h('input', { id: 'reading-key', type: 'password', autocomplete: 'off', placeholder: 'tm_…' });
  show(
    h(
      'section',
      { 'aria-labelledby': 'inboxes-title' },
      h('h1', { id: 'inboxes-title' }, 'Inboxes'),
      session.key
        ? h('div', {}, h('p', {}, 'Reading with the key you created or gave in this session (kept in memory only).'), createInboxForm())
        : h(
            'form',
            {
              onsubmit: (event: Event) => {
                event.preventDefault();
                session.key = keyInput.value.trim();
                if (wanted && location.hash !== `#inbox/${wanted}`) location.hash = `#inbox/${wanted}`;
                else void route();
                wanted = undefined;
              },
            },
            wanted ? h('p', { class: 'warning', role: 'alert', id: 'key-needed' }, 'Reading an inbox goes through the API: give an API key first (Keys creates one).') : null,
            h('label', { for: 'reading-key' }, 'API key to read mail with (kept in memory only)'),
            keyInput,
            ' ',
            h('button', { type: 'submit' }, 'Use key'),
          ),
      h(
        'table',
        { id: 'inboxes' },
        h('caption', {}, 'Your addresses, newest first'),
        h('thead', {}, h('tr', {}, h('th', {}, 'Address'), h('th', {}, 'Status'), h('th', { class: 'optional' }, 'Created'), h('th', {}, 'Expires'))),
        h('tbody', {}, ...page.data.map((email) => h('tr', {}, h('td', {}, h('a', { href: `#inbox/${email.id}` }, email.address)), h('td', {}, email.status), h('td', { class: 'optional' }, when(email.created_at)), h('td', {}, when(email.expires_at))))),
      ),
      page.pagination.has_more ? h('button', { type: 'button', class: 'secondary', onclick: () => void inboxesScreen(page.pagination.next_cursor) }, 'Older inboxes') : null,
    ),
  );
}

/**
 * Creates an inbox through `/v1` with the key in memory: charged like any create, and the page says
 * so. The local part is the reader's or, left empty, the service's choice.
 */
function createInboxForm(): HTMLElement {
  const localPart = h('input', { id: 'local-part', name: 'local_part', maxlength: '64', autocomplete: 'off', pattern: '[a-z0-9]([a-z0-9._\\-]{0,62}[a-z0-9])?', 'aria-describedby': 'local-part-help' });
  const outcome = h('div', { id: 'create-inbox-outcome', role: 'status' });
  const form = h(
    'form',
    {
      id: 'create-inbox',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void createInbox(localPart.value.trim(), outcome);
      },
    },
    h('h2', {}, 'New inbox'),
    h('label', { for: 'local-part' }, 'Local part (optional)'),
    h('p', { class: 'cost', id: 'local-part-help' }, 'Lowercase letters, digits, dots, underscores and hyphens; leave it empty for a random one.'),
    localPart,
    ' ',
    h('button', { type: 'submit' }, 'Create inbox'),
    costNote('Creating an inbox costs 1 request, like any create through the API.'),
    outcome,
  );
  return form;
}

async function createInbox(localPart: string, outcome: HTMLElement): Promise<void> {
  try {
    const { data } = await json<{ data: Email }>('/v1/emails', session.key!, {
      method: 'POST',
      headers: { 'Idempotency-Key': `console-${crypto.randomUUID()}` },
      body: JSON.stringify(localPart ? { local_part: localPart } : {}),
    });
    addresses.set(data.id, data.address);
    await inboxesScreen();
    document.getElementById('create-inbox-outcome')!.replaceChildren(
      h('p', {}, 'Created ', h('a', { href: `#inbox/${data.id}` }, data.address), `. That cost 1 request. Remaining: ${lastRemaining ?? '?'}.`),
    );
  } catch (error) {
    outcome.replaceChildren(h('p', { class: 'problem', role: 'alert' }, (error as Error).message));
  }
}

/** The key to read with; without one, the inbox list asks for it and says why. */
async function requireKey(emailId: string): Promise<string | undefined> {
  if (session.key) return session.key;
  wanted = emailId;
  if (location.hash === '#inboxes') await inboxesScreen();
  else location.hash = '#inboxes';
  return undefined;
}

async function inboxScreen(emailId: string): Promise<void> {
  const key = await requireKey(emailId);
  if (!key) return;
  const address = addresses.get(emailId);
  const listing = h('div', { id: 'listing' });
  const look = async () => listing.replaceChildren(...messageList(await json<Page<MessageItem>>(`/v1/emails/${encodeURIComponent(emailId)}/messages`, key)));
  await look();
  const copy = address ? h('button', { type: 'button', class: 'secondary', id: 'copy-address', onclick: () => void navigator.clipboard?.writeText(address).then(() => (copy!.textContent = 'Copied')) }, 'Copy address') : null;
  const auto = h('input', { type: 'checkbox', id: 'auto-refresh' });
  auto.addEventListener('change', () => (auto.checked ? autoRefresh.start(look) : autoRefresh.stop()));
  show(
    h(
      'section',
      { 'aria-labelledby': 'inbox-title' },
      h('h1', { id: 'inbox-title' }, `Messages to ${address ?? 'this inbox'}`),
      copy,
      listing,
      h(
        'p',
        {},
        h('button', { type: 'button', class: 'secondary', id: 'refresh', onclick: () => void look().catch(showFailure) }, 'Refresh'),
        ' ',
        auto,
        h('label', { for: 'auto-refresh', class: 'inline' }, ` Refresh every ${autoRefresh.seconds} seconds while this tab is visible (${60 / autoRefresh.seconds} requests a minute)`),
      ),
      h('p', {}, h('a', { href: '#inboxes' }, 'All inboxes')),
    ),
  );
}

/** The listing's summary (count and newest arrival, from the page the view just read) and its items. */
function messageList(page: Page<MessageItem>): Node[] {
  const count = `${page.data.length}${page.pagination.has_more ? '+' : ''}`;
  const newest = page.data[0];
  const nodes: (Node | null)[] = [
    h('p', { id: 'inbox-summary' }, `${count} message${count === '1' ? '' : 's'}`, newest ? ` · newest ${when(newest.received_at)}` : ''),
    costNote(`Each look at this list costs 1 request. Remaining: ${lastRemaining ?? '?'}.`),
    page.data.length === 0 ? h('p', {}, 'Nothing has arrived yet. Refresh to look again.') : null,
    h('ul', { id: 'messages' }, ...page.data.map((message) => h('li', {}, h('a', { href: `#message/${message.id}` }, message.subject || '(no subject)'), ` from ${message.from} · ${when(message.received_at)}`))),
  ];
  return nodes.filter((node): node is Node => node !== null);
}

/**
 * The optional auto-refresh of an inbox: one look every `seconds` while the tab is visible, none
 * while it is hidden or once the view is left (each look is a charged request).
 */
const autoRefresh = {
  seconds: 10,
  timer: undefined as ReturnType<typeof setInterval> | undefined,
  look: undefined as (() => Promise<unknown>) | undefined,
  start(look: () => Promise<unknown>): void {
    this.stop();
    this.look = look;
    if (document.visibilityState === 'visible') this.timer = setInterval(() => void look().catch(showFailure), this.seconds * 1000);
  },
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.look = undefined;
  },
  pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  },
};
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') autoRefresh.pause();
  else if (autoRefresh.look && !autoRefresh.timer) autoRefresh.start(autoRefresh.look);
});

function showFailure(error: unknown): void {
  autoRefresh.stop();
  document.getElementById('listing')?.append(h('p', { class: 'problem', role: 'alert' }, error instanceof Error ? error.message : 'Something failed.'));
}

/**
 * The mail's HTML with its in-page (`#…`) links made plain text. The frame's document inherits the
 * console's base URL and its `base-uri 'none'` (no `<base>` can change that), so such a link would
 * load the console itself inside the frame, which `frame-ancestors` refuses: the view would break.
 * Parsed inertly (DOMParser runs nothing); everything else is left as the sanitizer made it.
 */
function withoutInPageLinks(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const link of doc.querySelectorAll('a[href^="#"]')) link.removeAttribute('href');
  return doc.documentElement.outerHTML;
}

/**
 * A message, read through `/v1`. Its sanitized HTML is shown in a sandboxed frame that may run no
 * script, has no origin of its own, and carries its own restrictive policy: nothing in a mail runs,
 * navigates or submits.
 */
async function messageScreen(messageId: string): Promise<void> {
  if (!session.key) return void (location.hash = '#inboxes');
  const key = session.key;
  const { data: message } = await json<{ data: Message }>(`/v1/messages/${encodeURIComponent(messageId)}`, key);
  const frame = h('iframe', { class: 'mail-html', id: 'mail-html', title: 'Message HTML (sanitized, scripts disabled)', sandbox: '', referrerpolicy: 'no-referrer' });
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'">${withoutInPageLinks(message.html)}`;
  const attachmentName = (name: string, id: string) => name.replace(/[^A-Za-z0-9._-]/g, '_') || `${id}.bin`;
  show(
    h(
      'section',
      { 'aria-labelledby': 'message-title' },
      h('h1', { id: 'message-title' }, message.subject || '(no subject)'),
      h('p', {}, `From ${message.from} · ${when(message.received_at)}`),
      costNote(`Reading this message cost 1 request; each download costs 1 more. Remaining: ${lastRemaining ?? '?'}.`),
      extracted(message),
      messageTabs(message, frame, key),
      h(
        'p',
        {},
        h('button', { type: 'button', class: 'secondary', id: 'download-source', onclick: () => void download(message.source_path, key, `${message.id}.eml`) }, 'Download raw source'),
      ),
      message.attachments.length ? h('h2', {}, 'Attachments') : null,
      h('ul', {}, ...message.attachments.map((attachment) => h('li', {}, h('button', { type: 'button', class: 'secondary', onclick: () => void download(attachment.download_path, key, attachmentName(attachment.filename, attachment.id)) }, `Download ${attachment.filename || attachment.id}`), ` (${attachment.size_bytes} bytes)`))),
      h('p', {}, h('a', { href: `#inbox/${encodeURIComponent(message.email_id)}` }, 'Back to the inbox')),
    ),
  );
}

/** The code and the first link, found by the client package's own rules, each with a copy button. */
function extracted(message: Message): HTMLElement | null {
  const code = extractCode(message);
  const link = extractLink(message);
  if (!code && !link) return null;
  const copyButton = (id: string, value: string, label: string) => {
    const button = h('button', { type: 'button', class: 'secondary', id, onclick: () => void navigator.clipboard?.writeText(value).then(() => (button.textContent = 'Copied')) }, label);
    return button;
  };
  return h(
    'dl',
    { id: 'extracted' },
    code ? h('dt', {}, 'Code') : null,
    code ? h('dd', {}, h('code', { id: 'extracted-code' }, code), ' ', copyButton('copy-code', code, 'Copy code')) : null,
    link ? h('dt', {}, 'First link') : null,
    link ? h('dd', {}, h('code', { id: 'extracted-link' }, link), ' ', copyButton('copy-link', link, 'Copy link')) : null,
  );
}

/**
 * The message's views as tabs: its sanitized HTML, its text, and its headers and raw source, read
 * from the raw source on first opening (1 request, said on the tab's panel).
 */
function messageTabs(message: Message, frame: HTMLIFrameElement, key: string): HTMLElement {
  let raw: Promise<string> | undefined;
  const headers = h('pre', { class: 'mail-text', id: 'mail-headers' });
  const source = h('pre', { class: 'mail-text', id: 'mail-source' });
  const loadRaw = () =>
    (raw ??= text(message.source_path, key).then((body) => {
      const end = body.search(/\r?\n\r?\n/);
      headers.textContent = end < 0 ? body : body.slice(0, end);
      source.textContent = body;
      return body;
    }));
  const rawNote = () => costNote('Headers and raw source are read from the raw source: 1 request, the first time either is opened.');
  const panels: [string, string, Node[], boolean][] = [
    ['html', 'HTML', [message.html ? frame : h('p', {}, 'This message has no HTML part.')], false],
    ['text', 'Text', [h('pre', { class: 'mail-text', id: 'mail-text' }, message.text)], false],
    ['headers', 'Headers', [rawNote(), headers], true],
    ['source', 'Raw source', [rawNote(), source], true],
  ];
  const list = h('div', { role: 'tablist', 'aria-label': 'Message views', class: 'tabs' });
  const container = h('div', {}, list);
  const tabs: HTMLButtonElement[] = [];
  const panelElements: HTMLElement[] = [];
  const select = (index: number) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute('aria-selected', String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
      panelElements[i]!.hidden = i !== index;
    });
    if (panels[index]![3]) void loadRaw().catch((error: Error) => source.replaceChildren(error.message));
  };
  panels.forEach(([id, label, children], index) => {
    const tab = h('button', { type: 'button', role: 'tab', id: `tab-${id}`, 'aria-controls': `panel-${id}`, class: 'tab', onclick: () => select(index) }, label);
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = (index + step + tabs.length) % tabs.length;
      select(next);
      tabs[next]!.focus();
    });
    tabs.push(tab);
    list.append(tab);
    const panel = h('div', { role: 'tabpanel', id: `panel-${id}`, 'aria-labelledby': `tab-${id}` }, ...children);
    panelElements.push(panel);
    container.append(panel);
  });
  select(message.html ? 0 : 1);
  return container;
}

void boot();
