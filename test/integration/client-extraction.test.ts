import { extractCode, extractLink, extractLinks, type Message } from '../../client/src';
import { signupMails } from '../fixtures/signup-mails';
import { startTestService, type TestService } from '../support/local-service';
import { sendMail } from '../support/smtp-client';
import { clientFor } from '../support/tempmail-client';

/**
 * The extraction helpers on realistic sign-up, reset and magic-link mails, as the service
 * delivers them: each mail goes in over SMTP, and the helpers read the stored message (`text`
 * and the sanitized `html`, whose attribute values keep their escaping).
 */
let service: TestService;
const received = new Map<string, Message>();

beforeAll(async () => {
  service = await startTestService();
  const { apiKey } = await service.account('paid');
  const { client } = clientFor(service, apiKey);
  const email = await client.createEmail();
  for (const mail of signupMails) {
    await sendMail(service.runtime.smtpPort, { from: mail.from, to: email.address, subject: mail.subject, text: mail.text, html: mail.html });
  }
  for await (const item of client.messages(email.id, { limit: 100 })) received.set(item.subject, await client.getMessage(item.id));
});
afterAll(() => service.close());

describe('code and link extraction on realistic mails', () => {
  it('has at least 15 mails, all delivered', () => {
    expect(signupMails.length).toBeGreaterThanOrEqual(15);
    expect(received.size).toBe(signupMails.length);
  });

  it.each(signupMails.map((mail) => [mail.name, mail] as const))('%s', (_name, mail) => {
    const message = received.get(mail.subject)!;
    if (mail.code !== undefined) expect(extractCode(message)).toBe(mail.code);
    if (mail.link !== undefined) expect(extractLink(message)).toBe(mail.link);
    for (const link of extractLinks(message)) expect(link).not.toMatch(/unsub|abmelden|wypisz|&amp;/i);
  });

  it('reads the shapes the README describes: text rendered from an HTML-only mail, escaped hrefs', () => {
    const htmlOnly = received.get('Your one-time passcode')!;
    expect(htmlOnly.text).toContain('ONE-TIME PASSCODE');
    expect(htmlOnly.text).toContain('Unsubscribe\n[https://northwind-bank.example/u/unsub?id=77]');
    expect(received.get('Bitte bestätigen Sie Ihre E-Mail-Adresse')!.html).toContain('?token=Zk29aQ&amp;lang=de"');
  });

  it('finds no code in a mail that has none', () => {
    const message = received.get('Votre lien de connexion')!;
    expect(extractCode(message)).toBeUndefined();
  });
});
