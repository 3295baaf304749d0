import type { MessageRecord } from '../../lambdas/core/ports/message-store';

/** A stored message in one line: a small text mail of `mail_1`, with what a test changes given. */
export function messageRecord(overrides: Partial<MessageRecord> = {}): MessageRecord {
  return {
    messageId: 'msg_1',
    emailId: 'eml_1',
    accountId: 'acc_1',
    mailId: 'mail_1',
    from: 'a@example.org',
    to: ['x@tempmail.localhost'],
    subject: 'hello',
    receivedAt: '2026-11-22T12:00:00.000Z',
    expiresAt: '2026-11-22T12:15:00.000Z',
    sizeBytes: 100,
    attachmentCount: 0,
    text: { inline: 'hi' },
    html: { inline: '' },
    attachments: { inline: [] },
    rawKey: 'mail/mail_1/raw',
    ...overrides,
  };
}
