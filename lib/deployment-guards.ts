import { Token } from 'aws-cdk-lib';
import { environmentPattern } from '../lambdas/core/api-keys';
import { normalizeDomain } from '../lambdas/core/domains';
import { supportContactProblem } from '../console/support-contact';

/**
 * The AWS Regions where SES receives mail, from the table "Email receiving endpoints" of
 * https://docs.aws.amazon.com/general/latest/gr/ses.html#ses_inbound_endpoints (SES API and
 * sending are offered in more Regions than receiving). Keep in step with that page: a Region
 * missing here is refused at synth although SES might receive there.
 */
export const sesReceivingRegions: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'ap-southeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ca-central-1',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
];

/**
 * Refuses at synth a stage name the functions would refuse at cold start: API keys carry the
 * stage (`tm_<stage>_…`), and the functions accept only `[a-z0-9-]{1,16}`.
 */
export function assertStageName(stage: string): void {
  if (!environmentPattern.test(stage)) {
    throw new Error(
      `Invalid stage "${stage}": a stage name is 1 to 16 lowercase letters, digits or hyphens ([a-z0-9-]{1,16}), since API keys carry it.`,
    );
  }
}

/** Refuses at synth a support contact the console could not show whole (`supportContactProblem`). */
export function assertSupportContact(value: string): void {
  const problem = supportContactProblem(value);
  if (problem) throw new Error(`Invalid supportContact: it ${problem}. Give whom customers ask for more requests, an email address or a page (-c supportContact=billing@example.com).`);
}

/**
 * The receiving domains in the form the service compares them in (lowercase, no trailing dot, as
 * `normalizeDomain` gives every domain the API and the CLI take), refusing at synth what the
 * functions could never match: a name that is not a hostname, a domain listed twice in any
 * spelling, and no domain at all. Without recipients, an SES receipt rule applies to every
 * recipient of every verified identity in the Region (Recipients, in the SES API's `ReceiptRule`):
 * this stage's rule would take, and with its final stop action end, the mail of every other
 * domain and application of the account there.
 */
export function receivingDomainNames(domains: readonly string[]): string[] {
  if (domains.length === 0) {
    throw new Error(
      'No receiving domain: give at least one (-c domains=mail.example.com). A receipt rule without recipients would take the mail of every verified domain in the Region.',
    );
  }
  const canonical = domains.map((domain) => {
    try {
      return normalizeDomain(domain);
    } catch {
      throw new Error(`Invalid receiving domain ${JSON.stringify(domain)}: a receiving domain is a hostname of at most 253 characters (mail.example.com).`);
    }
  });
  const duplicate = canonical.find((domain, index) => canonical.indexOf(domain) !== index);
  if (duplicate) throw new Error(`The receiving domain ${duplicate} is listed twice.`);
  return canonical;
}

/**
 * Refuses at synth a Region where SES does not receive mail. A stack synthesized without a
 * Region (env-agnostic) is checked at deploy time by a template rule instead.
 */
export function assertReceivingRegion(region: string): void {
  if (Token.isUnresolved(region)) return;
  if (!sesReceivingRegions.includes(region)) {
    throw new Error(
      `SES does not receive mail in ${region}; deploy to one of ${sesReceivingRegions.join(', ')} ` +
        '(see https://docs.aws.amazon.com/general/latest/gr/ses.html#ses_inbound_endpoints).',
    );
  }
}
