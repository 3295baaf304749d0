import { extractCode, extractLink } from '../../../client/src/extract';
import { download, json, lastRemaining } from '../api';
import { costNote, h, show, when } from '../dom';
import type { Message } from '../shapes';
import { session } from '../session';
import { messageTabs } from './message-tabs';

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
export async function messageScreen(messageId: string): Promise<void> {
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
