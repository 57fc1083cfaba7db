/** A broken invariant: a bug, never an expected refusal. Throws so the transaction rolls back. */
export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
