// Shared with the benchmarks, which may not import test code: support/test-pki.ts.
export * from '../../support/test-pki.js';
