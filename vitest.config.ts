import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report feeds the plain "N passed, N failed" line that CI prints at the end.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    // Unit and infra files are CPU-bound: two at once on a two-core machine (vitest's default, one
    // fewer than the cores, runs them one by one and doubles their time).
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 20_000, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          // One local runtime (npm start's code, in a child process) for the whole project.
          globalSetup: ['test/integration/setup.ts'],
          // Files spend most of their time waiting on the runtime (journeys, timers, a browser):
          // three at once, not the default of one on a two-core machine (four made browser tests miss their waits).
          maxWorkers: 3,
          // Projects with their own maxWorkers run as their own group: after unit and infra.
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
