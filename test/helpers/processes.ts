// Shared with the benchmarks, which may not import test code: support/processes.ts.
export * from '../../support/processes.js';
