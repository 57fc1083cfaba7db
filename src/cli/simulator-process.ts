/**
 * What the `corridor <provider>-sim` commands share: a log line per event on standard output, named
 * after the simulator, and serving until SIGINT or SIGTERM, then closing the simulator.
 */

/** Writes `<time> <name> <line>` to standard output. */
export function simulatorLog(name: string): (line: string) => void {
  return (line) => process.stdout.write(`${new Date().toISOString()} ${name} ${line}\n`);
}

/** Waits for SIGINT or SIGTERM, then closes the simulator. */
export async function serveUntilSignal(close: () => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await close();
}
