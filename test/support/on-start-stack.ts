// The `start:stack` project (jest.config.js): the contract's suites run their service as the stack deploys.
process.env.TEMPMAIL_TEST_RUNTIME = 'start:stack';
