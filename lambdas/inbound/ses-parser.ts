import { lambdaBlobServices } from '../composition/lambda-blob-services';
import type { BlobServices } from '../composition/services';
import { newMailId } from '../core/ids';
import { ingestMail } from './ingest-mail';
import { sesMail, sesRawPrefix, type SesReceiptEvent } from './ses-events';

/**
 * The SES receipt rule's Event action: the raw message is already in S3 under the SES message
 * id; ingest it like the local SMTP intake does. A thrown error makes Lambda retry, then the
 * dead-letter queue keeps the event.
 */
export function createSesParser(services: () => BlobServices) {
  return async (event: SesReceiptEvent): Promise<{ messageIds: string[] }> => {
    const mail = sesMail(event);
    return ingestMail(
      {
        mailId: newMailId(mail.receivedAt),
        rawKey: `${sesRawPrefix}${mail.messageId}`,
        recipients: mail.recipients,
        receivedAt: mail.receivedAt,
        // SES has answered the sender already: a mail past a limit is kept in part and counted.
        refusable: false,
      },
      services(),
    );
  };
}

export const handler = createSesParser(lambdaBlobServices);
