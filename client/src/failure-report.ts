import { extractCode, extractLink } from './extract';
import type { TempmailClient } from './client';
import type { Inbox } from './inbox';

/** How much of a returned mail's text a failure report shows. */
export const TEXT_SHOWN = 2_000;

/** What a failed test's report carries of its inbox (never the key: the client keeps it to itself). */
export interface FailureReport {
  address: string;
  id: string;
  /** The mails the inbox holds (one charged list request), or why they could not be listed. */
  received: { received_at: string; subject: string; from: string }[] | { error: string };
  /** Whether the inbox holds more than the newest 100 listed. */
  more: boolean;
  /** Each mail a wait returned, with its text (capped) and what the package extracts from it. */
  returned: { subject: string; from: string; received_at: string; code: string | null; link: string | null; text: string; text_omitted: number }[];
}

/**
 * The inbox of a failed test, as the pytest plugin reports it: one list request (the report
 * counts it in `requests`), and the waits' mails from memory. A failed listing is reported, not
 * thrown, so that the report never hides the test's own failure.
 */
export async function failureReport(inbox: Inbox<TempmailClient>): Promise<{ report: FailureReport; requests: number }> {
  let received: FailureReport['received'];
  let more = false;
  try {
    const page = await inbox.client.listMessages(inbox.id, { limit: 100 });
    received = page.data.map((item) => ({ received_at: item.received_at, subject: item.subject, from: item.from }));
    more = page.pagination.has_more;
  } catch (error) {
    received = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  const returned = inbox.returned.map((message) => ({
    subject: message.subject,
    from: message.from,
    received_at: message.received_at,
    code: extractCode(message) ?? null,
    link: extractLink(message) ?? null,
    text: message.text.slice(0, TEXT_SHOWN),
    text_omitted: Math.max(0, message.text.length - TEXT_SHOWN),
  }));
  return { report: { address: inbox.address, id: inbox.id, received, more, returned }, requests: 1 };
}

/** The report as text, in the pytest plugin's wording. */
export function failureReportText(report: FailureReport, spentLine: string): string {
  const lines = [`address: ${report.address} (${report.id})`, spentLine];
  if ('error' in report.received) lines.push(`received: not listed (${report.received.error})`);
  else {
    const count = report.received.length;
    lines.push(`received: ${count} mail${count === 1 ? '' : 's'}${report.more ? ' (the newest 100)' : ''}`);
    lines.push(...report.received.map((item) => `  ${item.received_at} ${JSON.stringify(item.subject)} from ${JSON.stringify(item.from)}`));
  }
  for (const message of report.returned) {
    const shown = message.text_omitted > 0 ? `${message.text}… (${message.text_omitted} more characters)` : message.text;
    lines.push(`returned by a wait: ${JSON.stringify(message.subject)} from ${JSON.stringify(message.from)} at ${message.received_at}`);
    lines.push(`  code: ${message.code ?? 'None'}`, `  link: ${message.link ?? 'None'}`, '  text:');
    // As Python's splitlines: a final line break opens no empty line.
    const shownLines = shown.split(/\r\n|\r|\n/);
    if (shownLines.at(-1) === '') shownLines.pop();
    lines.push(...shownLines.map((line) => `    ${line}`));
  }
  return lines.join('\n');
}
