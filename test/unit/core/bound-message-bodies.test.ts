import { toProxyResponse } from '../../../lambdas/api/proxy-event';
import { boundMessageBodies, messageReadBudgetBytes, truncationMarker } from '../../../lambdas/core/bound-message-bodies';
import type { BlobStore } from '../../../lambdas/core/ports/blob-store';
import type { MessageRecord } from '../../../lambdas/core/ports/message-store';
import { toMessageResource } from '../../../lambdas/core/messages';
import { bufferedPayloadLimitBytes, payloadBytes } from '../../../lambdas/core/payload-bytes';

/** Every character the costliest there is once escaped twice (7 bytes), at every bound the ingest keeps. */
const worst = (bytes: number) => '\u0001'.repeat(bytes);
const id = (prefix: string, n: number) => `${prefix}_${String(n).padStart(64, 'x')}`;

function worstCaseRecord(bodyCharacters: number): MessageRecord {
  const messageId = id('msg', 1);
  return {
    messageId,
    emailId: id('eml', 1),
    accountId: 'acc_1',
    mailId: 'mail_1',
    rawKey: 'inbound/x',
    from: worst(1024),
    to: Array.from({ length: 100 }, () => worst(320)),
    subject: worst(2048),
    receivedAt: '2026-11-27T15:00:00.000Z',
    expiresAt: '2026-11-27T15:15:00.000Z',
    sizeBytes: 40 * 1024 * 1024,
    attachmentCount: 1000,
    text: { inline: worst(bodyCharacters) },
    html: { inline: worst(bodyCharacters) },
    attachments: {
      inline: Array.from({ length: 1000 }, (_, n) => ({
        attachmentId: id('att', n),
        filename: worst(255),
        contentType: worst(255),
        sizeBytes: Number.MAX_SAFE_INTEGER,
        blobKey: `mail/mail_1/att/${n}`,
      })),
    },
  };
}

/** The bytes Lambda's runtime would send for the route's answer, as it serializes the proxy response. */
const lambdaPayload = (data: unknown) => Buffer.byteLength(JSON.stringify(toProxyResponse({ status: 200, body: { data } })), 'utf8');
/** The bytes of the body alone in that payload: the figure the read's budget bounds. */
const bodyPayload = (data: unknown) => Buffer.byteLength(JSON.stringify(JSON.stringify({ data })), 'utf8');

describe('a message read at its worst case', () => {
  it('fits the buffered response with every field at its bound and every character an escape', async () => {
    const message = await toMessageResource(worstCaseRecord(4_000_000), {} as BlobStore);
    expect(bodyPayload(message)).toBeLessThanOrEqual(messageReadBudgetBytes);
    expect(lambdaPayload(message)).toBeLessThan(bufferedPayloadLimitBytes - 900_000);
    // The bodies take what the rest leaves: the budget is used, not wasted.
    expect(bodyPayload(message)).toBeGreaterThan(messageReadBudgetBytes - 100);
    expect(message.text.endsWith(truncationMarker('text', message.source_path))).toBe(true);
    expect(message.html.endsWith(truncationMarker('html', message.source_path))).toBe(true);
    expect(message.attachments).toHaveLength(1000);
  });

  it('leaves the bodies 800 KB even then, and 3 MB within what the ingest lets through', async () => {
    const bare = await toMessageResource(worstCaseRecord(0), {} as BlobStore);
    expect(bodyPayload(bare)).toBeLessThan(messageReadBudgetBytes - 800_000);
    // The ingest removes control characters from headers and names and keeps a bare media type:
    // a quote (4 bytes) is then the costliest character, and a content type costs 1 byte a character.
    const quotes = (bytes: number) => '"'.repeat(bytes);
    const record = worstCaseRecord(0);
    const ingested: MessageRecord = {
      ...record,
      from: quotes(1024),
      subject: quotes(2048),
      to: record.to.map(() => quotes(320)),
      attachments: {
        inline: ('inline' in record.attachments ? record.attachments.inline : []).map((attachment) => ({
          ...attachment,
          filename: quotes(255),
          contentType: `application/${'x'.repeat(243)}`,
        })),
      },
    };
    expect(bodyPayload(await toMessageResource(ingested, {} as BlobStore))).toBeLessThan(messageReadBudgetBytes - 3_000_000);
  });

  it('keeps a message that fits whole, unmarked', async () => {
    const record = { ...worstCaseRecord(0), text: { inline: 'hello' }, html: { inline: '<p>hello</p>' } };
    const message = await toMessageResource(record, {} as BlobStore);
    expect([message.text, message.html]).toEqual(['hello', '<p>hello</p>']);
  });
});

describe('boundMessageBodies', () => {
  const source = '/v1/messages/msg_0123456789/source';
  const cost = (bodies: { text: string; html: string }) => payloadBytes(bodies.text) + payloadBytes(bodies.html);

  it('leaves a small body whole and gives the other what it leaves', () => {
    const bounded = boundMessageBodies({ text: 'short', html: `<p>${'a'.repeat(10_000)}</p>` }, 2_000, source);
    expect(bounded.text).toBe('short');
    expect(bounded.html.endsWith(truncationMarker('html', source))).toBe(true);
    expect(cost(bounded)).toBeLessThanOrEqual(2_000);
    expect(cost(bounded)).toBeGreaterThan(1_800);
  });

  it('splits the budget evenly when both are large', () => {
    const bounded = boundMessageBodies({ text: 'a'.repeat(10_000), html: 'b'.repeat(10_000) }, 2_000, source);
    expect(bounded.text.startsWith('a'.repeat(800))).toBe(true);
    expect(bounded.html.startsWith('b'.repeat(800))).toBe(true);
    expect(cost(bounded)).toBeLessThanOrEqual(2_000);
  });

  it('cuts HTML between tags and character references, never inside one', () => {
    const marker = truncationMarker('html', source);
    const html = `<p>one &amp; two</p><a href="https://example.org/?a=1&amp;b=2">link</a><img src="data:image/png;base64,${'A'.repeat(5_000)}" />`;
    for (let budget = 250; budget < 600; budget += 1) {
      const { html: cut } = boundMessageBodies({ text: '', html }, budget, source);
      const kept = cut.slice(0, -marker.length);
      expect(cut.endsWith(marker)).toBe(true);
      expect(html.startsWith(kept)).toBe(true);
      expect(kept.lastIndexOf('<')).toBeLessThanOrEqual(kept.lastIndexOf('>'));
      expect(kept.lastIndexOf('&')).toBeLessThanOrEqual(kept.lastIndexOf(';'));
    }
  });

  it('never keeps a cut image: the data URL goes with its tag', () => {
    const html = `<p>before</p><img src="data:image/png;base64,${'A'.repeat(100_000)}" /><p>after</p>`;
    const { html: cut } = boundMessageBodies({ text: '', html }, 50_000, source);
    expect(cut).toBe(`<p>before</p>${truncationMarker('html', source)}`);
  });
});
