import { json, lastRemaining } from '../api';
import { autoRefresh, showFailure } from '../auto-refresh';
import { costNote, h, show, when } from '../dom';
import type { MessageItem, Page } from '../shapes';
import { addresses } from '../session';
import { requireKey } from './inboxes-screen';

/** One inbox's messages, read through `/v1` with the key in memory: each look is charged. */
export async function inboxScreen(emailId: string): Promise<void> {
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
