import { json } from '../api';
import { h, show, when } from '../dom';
import type { Key } from '../shapes';
import { session } from '../session';
import { gettingStarted } from './getting-started';

/** The account's keys: create one (its secret shown once), revoke one after a confirmation. */
export async function keysScreen(created?: { key: Key; secret: string }): Promise<void> {
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
