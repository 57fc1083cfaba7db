import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // A throwaway CA for the HTTPS webhook receiver, trusted by the workers through NODE_EXTRA_CA_CERTS.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each worker imports the application once, not once per file (a third of the run's time):
    // every test file builds its own app and database, and the source keeps no state per process
    // that is not keyed by its database or config.
    isolate: false,
    // Generous: on a loaded machine an app or a server can take over a minute to start; a passing test
    // takes no longer for it.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
