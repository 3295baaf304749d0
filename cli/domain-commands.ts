import { addDomain, disableDomain, OutsideReceiptRule, reachesService, registeredDomains, type DomainRecord } from '../lambdas/core/domains';
import type { Domain } from '../lambdas/core/ports/domain-store';
import { UsageError, type Args, type Command } from './command';
import { functionEnvironmentNames as variables } from '../lambdas/composition/function-environment';

/**
 * `domain add`, `domain disable` and `domain list`. Where SES receives (a stack, in AWS or under
 * `npm run start:stack`), only the domains of its receipt rule receive, and the rule's recipients
 * are fixed at deployment: `domain add` of another domain is refused with the redeploy command
 * that adds it, and `domain list` says for each domain whether the rule covers it.
 */
export const domainCommands: Record<string, Command> = {
  'domain add': {
    line: { name: true },
    run: async (stores, args) => {
      const name = args.positionals[0]!;
      const { receiptRule } = args.connection;
      if (!args.local && receiptRule === undefined) {
        throw new UsageError(
          `domain add against AWS needs the receipt rule's domains: give --stack NAME (its output ${variables.receiptRuleDomains}), or set ${variables.receiptRuleDomains} to the -c domains the stack was deployed with`,
        );
      }
      try {
        return domainRecord(await addDomain(name, { ...stores, receiptRule }));
      } catch (error) {
        if (error instanceof OutsideReceiptRule) error.message += ` Redeploy with it: ${redeployCommand(error.redeployDomains, args)}`;
        throw error;
      }
    },
  },
  'domain disable': {
    line: { name: true },
    run: async (stores, { positionals }) => domainRecord(await disableDomain(positionals[0]!, stores)),
  },
  'domain list': {
    line: {},
    run: async (stores, { connection }) => {
      const records = await registeredDomains(stores);
      if (connection.receiptRule === undefined) return { data: records };
      return {
        data: records.map((record) => ({ ...record, in_receipt_rule: reachesService(record.domain, connection.receiptRule) })),
        receipt_rule_domains: connection.receiptRule,
      };
    },
  },
};

/**
 * How the stack comes to receive for the domains: `npx cdk deploy` with them as its `domains`
 * context (the stage from the stack's outputs; the deployer adds the other `-c` values it was
 * deployed with), or, for `npm run start:stack`, a restart with them in `TEMPMAIL_DOMAINS`.
 */
function redeployCommand(domains: string[], { local, environment }: Args): string {
  if (local) return `TEMPMAIL_DOMAINS=${domains.join(',')} npm run start:stack (once the running one has stopped)`;
  const deployed = environment[variables.stage];
  const stage = deployed ? `-c stage=${deployed} ` : '';
  return `npx cdk deploy ${stage}-c domains=${domains.join(',')} (with the other -c values it was deployed with)`;
}

function domainRecord(domain: Domain): DomainRecord {
  return { domain: domain.domain, create_enabled: domain.createEnabled, receive_enabled: domain.receiveEnabled };
}
