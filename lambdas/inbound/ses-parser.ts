import { lambdaFunctionServices } from '../composition/lambda-function-services';
import type { BlobServices } from '../composition/services';
import { RecipientMemory } from '../core/recipients';
import { ingestMail } from '../mail/ingest-mail';
import { parserFunction } from '../function-manifest';
import { sesReceivedMail, type SesReceiptEvent } from './ses-events';

/**
 * The SES receipt rule's Event action: the raw message is already in S3 under the SES message
 * id; ingest it like the local SMTP intake does. A thrown error makes Lambda retry, then the
 * dead-letter queue keeps the event (the operator CLI's `mail redrive` takes it from there).
 */
export function createSesParser(services: () => BlobServices) {
  // Kept while the function's instance lives: a further mail to a known address skips the registry read.
  let recipientMemory: RecipientMemory | undefined;
  return async (event: SesReceiptEvent): Promise<{ messageIds: string[] }> => {
    const deps = services();
    recipientMemory ??= new RecipientMemory(deps.clock);
    return ingestMail(sesReceivedMail(event), { ...deps, recipientMemory });
  };
}

export const handler = createSesParser(lambdaFunctionServices(parserFunction));
