import { loadConfig } from '../../src/config.js';
import { pollInbound } from '../../src/modules/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/modules/bank/inbound/inbound.source.js';
import { openContext } from '../../src/runtime.js';

/*
 * A process that takes in the bank's outbox and stops halfway through a file: after entry
 * BANK_STOP_AFTER it says HALFWAY on stdout and waits, its transaction open, for the test to kill it
 * with SIGKILL. Run by test/bank/inbound-crash.test.ts with `node --import tsx`.
 */
const config = loadConfig(process.env);
const ctx = await openContext(config);
const stopAfter = Number(process.env.BANK_STOP_AFTER);
await pollInbound(ctx, new LocalDirectorySource(process.env.BANK_OUTBOX as string), {
  accounts: JSON.parse(process.env.BANK_ACCOUNTS as string) as { id: string; iban: string; currency: string }[],
  onEntry: async (index) => {
    if (index !== stopAfter) return;
    process.stdout.write('HALFWAY\n');
    await new Promise(() => undefined);
  },
});
process.stdout.write('FINISHED\n');
