import { testConfig } from './local-service';

/**
 * The context of the one synthesis the suites share (the stack-shape suite runs it, the CDK CLI
 * suite reads it): the local test configuration's stage and domains.
 */
export const stackContext = { stage: testConfig.env, domains: testConfig.domains.join(',') };
