/**
 * Prints the run's closing line in the plain form any CI reads: `tests: N passed, N failed, N skipped`.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numFailedTestSuites + results.numRuntimeErrorTestSuites;
    const failed = results.numFailedTests + (results.numFailedTests === 0 ? failedSuites : 0);
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

module.exports = SummaryReporter;
