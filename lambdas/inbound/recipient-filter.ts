import { lambdaFunctionServices } from '../composition/lambda-function-services';
import type { ApiServices } from '../composition/services';
import { activeRecipients } from '../core/recipients';
import { recipientFilterFunction } from '../function-manifest';
import { sesMail, sesVirusFound, type SesReceiptEvent } from './ses-events';

/**
 * The SES receipt rule's first action (RequestResponse): stops the rule set unless at least one
 * envelope recipient is an active address, so no mail for unknown addresses is ever stored; and
 * stops it for a mail SES's virus scan failed, so it is never stored nor delivered.
 */
export function createRecipientFilter(services: () => ApiServices) {
  return async (event: SesReceiptEvent): Promise<{ disposition: 'CONTINUE' | 'STOP_RULE_SET' }> => {
    const { recipients } = sesMail(event);
    if (sesVirusFound(event)) return { disposition: 'STOP_RULE_SET' };
    const active = await activeRecipients(recipients, services());
    return { disposition: active.length > 0 ? 'CONTINUE' : 'STOP_RULE_SET' };
  };
}

export const handler = createRecipientFilter(lambdaFunctionServices(recipientFilterFunction));
