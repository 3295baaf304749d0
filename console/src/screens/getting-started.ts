import { costNote, h } from '../dom';

/**
 * Getting started with the key just created: the same first steps (create an inbox, wait for a
 * message) with curl, the TypeScript client, its command line and its Playwright fixture, with this
 * service's base URL filled in. Shown once, with the key, and kept nowhere.
 */
export function gettingStarted(secret: string): HTMLElement {
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
