const Sequencer = require('@jest/test-sequencer').default;

/** Whether a suite reads the synthesized stack: the `start:stack` project's, the stack-shape suite, the CDK CLI suite. */
const onStack = (test) =>
  test.context.config.displayName?.name === 'start:stack' || /[\\/]test[\\/](stack[\\/]|infra[\\/]cdk-cli\.test\.ts$)/.test(test.path);

/**
 * Jest's own order (failed first, then slowest first), with the suites that run the synthesized
 * stack last: they wait on its one synthesis (started at the beginning of a whole run by
 * global-setup.ts, minutes of bundling on a fresh clone), and the other suites keep both workers
 * busy meanwhile instead of waiting on the same lock.
 */
class StackLastSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((test) => !onStack(test)), ...sorted.filter(onStack)];
  }
}

module.exports = StackLastSequencer;
