import { loadConfig } from '../../src/platform/config.js';
import { parseBankConfig } from '../../src/connectors/bank/bank.config.js';
import { transportOf } from '../../src/connectors/bank/bank.transport.js';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { openContext } from '../../src/runtime.js';

/*
 * A process that takes in the bank's outbox over SFTP (the "bank" section in BANK_SECTION, as the
 * connectors file has it) and stops halfway through a file: after entry BANK_STOP_AFTER it says
 * HALFWAY on stdout and waits, that entry's chunk open, for the test to kill it with SIGKILL. Run by
 * test/bank/inbound-crash.test.ts with `node --import tsx`.
 */
const config = loadConfig(process.env);
const ctx = await openContext(config);
const bank = parseBankConfig(JSON.parse(process.env.BANK_SECTION as string), config.env);
const stopAfter = Number(process.env.BANK_STOP_AFTER);
await transportOf(bank).withOutbox((source) =>
  pollInbound(ctx, source, {
    accounts: bank.accounts,
    maxFileBytes: bank.inbound.maxFileBytes,
    chunkEntries: bank.inbound.chunkEntries,
    readMemoryMb: bank.inbound.readMemoryMb,
    onEntry: async (index) => {
      if (index !== stopAfter) return;
      process.stdout.write('HALFWAY\n');
      await new Promise(() => undefined);
    },
  }),
);
process.stdout.write('FINISHED\n');
