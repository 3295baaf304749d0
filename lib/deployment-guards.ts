import { Token } from 'aws-cdk-lib';
import { environmentPattern } from '../lambdas/core/api-keys';

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
