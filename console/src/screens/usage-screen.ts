import { json } from '../api';
import { costNote, h, show } from '../dom';
import type { Account } from '../shapes';
import { app, session } from '../session';

/** The account's plan and allowance, from the console API (free: never charged). */
export async function usageScreen(): Promise<void> {
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


/** Who grants more requests: the operator, named by the console's configuration when it can be. */
export function moreRequests(): HTMLElement {
  return h('p', { id: 'more-requests' }, 'More requests are granted by the operator of this service: ', app.config.support ? h('strong', {}, app.config.support) : 'ask whoever gave you access', '.');
}
