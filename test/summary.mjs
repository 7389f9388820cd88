// Prints the test run's closing line in the plain form CI reads: "N passed, N failed[, N skipped]".
import { existsSync, readFileSync } from 'node:fs';

const file = new URL('../test-results/vitest.json', import.meta.url);
if (!existsSync(file)) {
  console.log('tests: 0 passed, 0 failed (no test report: the run stopped before the tests, e.g. at the type check)');
  process.exit(0);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
