/**
 * Where raw mail is kept until its messages expire: the prefix the SES receipt rule's S3 action
 * writes under (`<prefix><SES message id>`), and the one the local SMTP intake writes under too,
 * so the sweeper finds every raw mail in one place whichever runtime received it.
 */
export const rawMailPrefix = 'inbound/';
