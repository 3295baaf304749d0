import { json, lastRemaining } from '../api';
import { costNote, h, show, when } from '../dom';
import type { Email, Page } from '../shapes';
import { addresses, app, pending, session } from '../session';

/** The account's inboxes (console API, free), and creating one through `/v1` with the key in memory (charged). */
export async function inboxesScreen(cursor?: string): Promise<void> {
  const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
  const page = await json<Page<Email>>(`/console/v1/emails${query}`, session.token!);
  const older = page.pagination.has_more ? page.pagination.next_cursor : undefined;
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
                if (pending.wanted && location.hash !== `#inbox/${pending.wanted}`) location.hash = `#inbox/${pending.wanted}`;
                else void app.route();
                pending.wanted = undefined;
              },
            },
            pending.wanted ? h('p', { class: 'warning', role: 'alert', id: 'key-needed' }, 'Reading an inbox goes through the API: give an API key first (Keys creates one).') : null,
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
      older ? h('button', { type: 'button', class: 'secondary', onclick: () => void inboxesScreen(older) }, 'Older inboxes') : null,
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
export async function requireKey(emailId: string): Promise<string | undefined> {
  if (session.key) return session.key;
  pending.wanted = emailId;
  if (location.hash === '#inboxes') await inboxesScreen();
  else location.hash = '#inboxes';
  return undefined;
}
