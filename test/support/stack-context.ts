import { synthesisContext } from '../../local/stack/start-stack';
import { testConfig } from './test-config';

/**
 * The receiving domains of the one synthesis the suites share: the local test configuration's,
 * and the second domain the create and domain suites reserve addresses on. A receipt rule covers
 * only the domains given at synthesis, so a suite on `start:stack` can use no other.
 */
export const stackDomains = [...testConfig.domains, 'mail.example.test'];

/**
 * The context of the one synthesis the suites share (the stack-shape suite and the contract
 * suites on `start:stack` run it, the CDK CLI suite reads it): as `npm run start:stack` gives it
 * with `TEMPMAIL_DOMAINS` set to `stackDomains`.
 */
export const stackContext = synthesisContext({ ...testConfig, domains: stackDomains });
