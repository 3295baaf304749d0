import type { Readable } from 'node:stream';
import type { Clock } from '../../lambdas/core/ports/clock';
import { newSesMessageId } from '../../lambdas/core/ids';
import type { Logger } from '../../lambdas/core/ports/logger';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { evaluateServiceRequest, type ResourcePolicy } from '../iam';
import { maxMessageBytes, messageTooBig, smtpError, type SmtpIntakeOptions } from '../smtp-intake';
import { overTls, type EvaluatedCall } from './aws-endpoints';
import { localNaming, type ReceiptAction, type ReceiptRule } from './template';

export interface ReceiptRuleRunnerOptions {
  /** The active rule set's enabled rules, in order. */
  rules: ReceiptRule[];
  /** A resource's own policy: the bucket's alone can let SES write. */
  resourcePolicy: (resourceArn: string) => ResourcePolicy | undefined;
  /** The bucket the S3 actions write to, as the operator sees it. */
  blobs: BlobStore;
  /** SES's time: the receipt's timestamp in the event. */
  clock: Clock;
  logger: Logger;
  /** Records what SES did on its own behalf (its S3 put), as evaluated. */
  record: (call: EvaluatedCall) => void;
  /** Invokes a function RequestResponse and resolves with its result. */
  invoke: (functionId: string, event: unknown) => Promise<unknown>;
  /** Queues an Event invocation of a function; throws when Lambda refuses the event. */
  queue: (functionId: string, event: unknown) => void;
  /** A function's ARN, as SES names it in the event. */
  functionArn: (functionId: string) => string;
}

/**
 * SES's receiving on the SMTP intake, as the template's receipt rules declare it: a recipient no
 * enabled rule covers is refused at `RCPT TO` (550), and a mail is taken through each matching
 * rule's actions in order: the S3 put made as SES makes it (judged against the bucket policy
 * alone), the functions invoked with the SES event (RequestResponse, whose `STOP_RULE_SET` ends
 * the mail, or Event), a stop action ending the rule set.
 */
export function receiptRuleRunner(options: ReceiptRuleRunnerOptions): Pick<SmtpIntakeOptions<string>, 'acceptRecipient' | 'receive'> {
  const { rules, logger } = options;
  return {
    async acceptRecipient(address) {
      const lower = address.toLowerCase();
      if (!rules.some((rule) => rule.recipients.some((recipient) => matches(recipient, lower)))) throw smtpError(550, '5.1.1 Recipient address rejected');
      return lower;
    },
    async receive(message: Readable, recipients: string[]) {
      const raw = await readWhole(message);
      const messageId = newSesMessageId();
      const timestamp = options.clock.now().toISOString();
      for (const rule of rules) {
        const matched = recipients.filter((address) => rule.recipients.some((recipient) => matches(recipient, address.toLowerCase())));
        if (matched.length === 0) continue;
        const outcome = await applyActions(rule, { raw, messageId, timestamp, matched });
        if (outcome === 'stop-rule-set') break;
      }
    },
  };

  /** One rule's actions, in order: whether the rule set goes on to the next rule. */
  async function applyActions(rule: ReceiptRule, mail: { raw: Buffer; messageId: string; timestamp: string; matched: string[] }): Promise<'next-rule' | 'stop-rule-set'> {
    for (const action of rule.actions) {
      if (action.kind === 's3') {
        if (!(await store(rule, action, mail.messageId, mail.raw))) return 'next-rule';
        continue;
      }
      if (action.kind === 'stop') return 'stop-rule-set';
      if (action.kind === 'unsupported') {
        logger.warn('receipt rule action not emulated', { rule: rule.name, action: action.type });
        continue;
      }
      const event = sesEvent(mail.messageId, mail.timestamp, mail.matched, rule, action, options.functionArn(action.functionId));
      if (action.invocationType === 'Event') {
        try {
          options.queue(action.functionId, event);
        } catch (error) {
          // Lambda refused the event (over its payload limit): the action failed, the mail stays in the bucket.
          logger.error('receipt rule function refused the event', { rule: rule.name, error: (error as Error).message });
        }
        continue;
      }
      const result = (await options.invoke(action.functionId, event).catch((error: Error) => {
        logger.error('receipt rule function failed', { rule: rule.name, error: error.message });
        return { disposition: 'STOP_RULE' };
      })) as { disposition?: string } | undefined;
      if (result?.disposition === 'STOP_RULE_SET') return 'stop-rule-set';
      if (result?.disposition === 'STOP_RULE') return 'next-rule';
    }
    return 'next-rule';
  }

  /** SES's S3 action: SES writes as itself, so only the bucket's policy can allow it, for this rule of this account. */
  async function store(rule: ReceiptRule, action: Extract<ReceiptAction, { kind: 's3' }>, messageId: string, raw: Buffer): Promise<boolean> {
    const put = overTls({
      action: 's3:PutObject',
      resource: `${action.bucketArn}/${action.prefix}${messageId}`,
      context: { 'aws:SourceAccount': localNaming.account, 'aws:SourceArn': rule.arn },
    });
    const decision = await evaluateServiceRequest('ses.amazonaws.com', localNaming.account, put, options.resourcePolicy(put.resource));
    options.record({ function: 'ses.amazonaws.com', service: 's3', action: put.action, resource: put.resource, decision: decision.result });
    if (decision.result !== 'allowed') {
      logger.error('receipt rule action refused: the mail is not stored', { rule: rule.name, reason: decision.reason });
      return false;
    }
    await options.blobs.put(`${action.prefix}${messageId}`, raw);
    return true;
  }
}

/** Whether a rule's recipient (an address, a domain, or `.domain` for its subdomains) covers an address. */
function matches(recipient: string, address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return recipient === address || recipient === domain || (recipient.startsWith('.') && domain.endsWith(recipient));
}

/** The whole mail, refused past SES's 40 MB as the intake advertises (552 after `DATA`). */
async function readWhole(message: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of message) {
    size += (chunk as Buffer).length;
    if (size <= maxMessageBytes) chunks.push(chunk as Buffer);
  }
  if (size > maxMessageBytes) throw messageTooBig();
  return Buffer.concat(chunks);
}

/** The event SES hands a Lambda action. */
function sesEvent(
  messageId: string,
  timestamp: string,
  recipients: string[],
  rule: { name: string; scanEnabled: boolean },
  action: { invocationType: string },
  functionArn: string,
) {
  const pass = { status: 'PASS' };
  return {
    Records: [
      {
        eventSource: 'aws:ses',
        eventVersion: '1.0',
        ses: {
          mail: { timestamp, source: '', messageId, destination: recipients, headersTruncated: false, headers: [], commonHeaders: {} },
          receipt: {
            timestamp,
            processingTimeMillis: 0,
            recipients,
            spamVerdict: pass,
            virusVerdict: rule.scanEnabled ? pass : { status: 'PROCESSING_FAILED' },
            spfVerdict: pass,
            dkimVerdict: pass,
            dmarcVerdict: pass,
            action: { type: 'Lambda', functionArn, invocationType: action.invocationType },
          },
        },
      },
    ],
  };
}
