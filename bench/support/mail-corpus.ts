import { randomBytes } from 'node:crypto';

/** One mail of a bench corpus, as nodemailer's message options. */
export interface BenchMail {
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

export interface Corpus {
  name: string;
  count: number;
  mail(index: number, runId: string): BenchMail;
}

const paragraph =
  'Thanks for signing up. Please confirm your address to finish creating your account; the link expires in 24 hours. ';

/** A newsletter-shaped HTML body of about `bytes` bytes: tables, inline styles, links and images. */
function htmlBody(bytes: number, index: number): string {
  const rows: string[] = [];
  let size = 0;
  for (let row = 0; size < bytes; row++) {
    const cell =
      `<tr><td style="padding:12px;font-family:Arial,sans-serif;color:#333333">` +
      `<h2 style="margin:0 0 8px 0">Story ${row} of issue ${index}</h2><p>${paragraph}</p>` +
      `<a href="https://example.org/track?u=${index}&amp;r=${row}">Read more</a>` +
      `<img src="https://example.org/img/${row}.png" width="120" height="60" alt="story ${row}"></td></tr>`;
    rows.push(cell);
    size += cell.length;
  }
  return `<html><body><table width="600" cellpadding="0" cellspacing="0">${rows.join('')}</table></body></html>`;
}

const noise = (bytes: number, seed: number) => {
  const buffer = randomBytes(bytes);
  buffer[0] = seed & 0xff;
  return buffer;
};

function corpus(name: string, count: number, htmlBytes: number, attachmentBytes: number): Corpus {
  return {
    name,
    count,
    mail: (index, runId) => ({
      subject: `bench ${runId} #${index}`,
      text: `${paragraph.repeat(4)}Your code is ${100000 + index}.`.slice(0, 500),
      html: htmlBody(htmlBytes, index),
      attachments:
        attachmentBytes > 0
          ? [{ filename: `receipt-${index}.pdf`, content: noise(attachmentBytes, index), contentType: 'application/pdf' }]
          : [],
    }),
  };
}

/** The corpus: about 10 KB (6 KB HTML, 500 bytes of text, a 2 KB attachment). */
export const signupCorpus = (count: number) => corpus('10 KB sign-up mail', count, 6_000, 2_000);
/** A 50 KB newsletter, HTML only. */
export const newsletterCorpus = (count: number) => corpus('50 KB newsletter', count, 50_000, 0);
/** A short mail carrying a 2 MB attachment. */
export const largeAttachmentCorpus = (count: number) => corpus('2 MB attachment', count, 2_000, 2 * 1024 * 1024);
