/**
 * Waits until `read` satisfies `done`, reading every 50 ms, and fails naming `what` and the last
 * value read. Generous by default: on a loaded machine a process or a server can take over a minute
 * to start; a passing test takes no longer for it.
 */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
