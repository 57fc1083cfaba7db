import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { start, type Role } from './cli/start.js';
import { openContext } from './runtime.js';
import { createWorkspace } from './modules/accounts/accounts.service.js';
import { issueCredential } from './modules/auth/credentials.service.js';
import { DomainError } from './lib/errors.js';
import { isUuid } from './lib/ids.js';
import { migrate } from './db/migrate.js';
import { CryptoBox } from './lib/crypto-box.js';
import { connect } from './db/db.js';
import { importPayouts } from './cli/payouts-import.js';
import { clientFromFlags, CLIENT_FLAGS, settingHint } from './cli/client.js';
import { defaultStateFile, eventTypesOf, listen } from './cli/listen.js';
import { trigger } from './cli/trigger.js';
import { chainXpub, encryptChainKey } from './cli/chain.js';
import { auditVerify } from './cli/audit.js';
import { screeningCommand } from './cli/screening.js';
import { bankSim } from './cli/bank-sim.js';

const USAGE = `Usage: corridor <command>

  start [--role all|api|worker]                     run the API and/or the workers (default all)
  migrate                                           apply database migrations
  workspaces create --name NAME --country CC        create a workspace
  credentials create --workspace ID [--scopes a,b]  issue a credential (secret shown once)
  listen --forward-to URL [--events a,b] [--since EVENT_ID] [--state FILE]
                                                    forward live events to a local URL, signed (prints the secret);
                                                    resumes after the last event forwarded to that URL (kept in FILE,
                                                    default ~/.corridor/listen.json) or after --since
  trigger <event-type>                              cause an event in the sandbox (payout.paid, application.approved, ...)
  audit verify [--workspace ID | --operator]        check an audit chain (default the operator's); exit 1 when broken
  screening load --list LIST --file PATH            load a sanctions list file as a new version (LIST: ofac-sdn, un, eu,
                                                    uk-ofsi; --file again for each file of OFAC's CSV set)
                                                    listen and trigger take --base-url, --client-id, --client-secret
                                                    or CORRIDOR_BASE_URL, CORRIDOR_CLIENT_ID, CORRIDOR_CLIENT_SECRET
  chain encrypt-key < secret                        seal a hot wallet key, deposit mnemonic or xpub (stdin) for the
                                                    connectors file's chains section, under CORRIDOR_ENCRYPTION_KEY
  chain xpub < mnemonic                             the account xpub of a mnemonic (a watch-only deposit wallet)
  bank-sim --dir DIR [--interval-ms N] [--once]     the sandbox bank: answers the bank connector's pain.001 files
                                                    in DIR/in into DIR/out by magic amounts (docs/guides/bank-rails.md)

Configuration comes from the environment; see docs/configuration.md.
\`corridor <command> --help\` prints this too.`;

/** `--help` or `-h` anywhere (or `help` as the command): the usage, on stdout, and exit 0. */
function wantsHelp(argv: string[]): boolean {
  return argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  if (wantsHelp(argv)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'start': {
      const { values } = parseArgs({ args: argv.slice(1), options: { role: { type: 'string', default: 'all' } } });
      const role = values.role as Role;
      if (!['all', 'api', 'worker'].includes(role)) fail(`--role must be all, api or worker`);
      await start(config, role);
      return;
    }
    case 'migrate': {
      const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      // Some migrations seal existing rows, so migrating needs the encryption key, as a start does.
      const applied = await migrate(db, CryptoBox.load(config.encryptionKey, config.dataDir));
      await db.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
      return;
    }
    case 'workspaces': {
      if (sub !== 'create') fail('unknown workspaces command');
      const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, country: { type: 'string' } } });
      if (!values.name || !values.country || !/^[A-Z]{2}$/.test(values.country)) fail('--name and --country (ISO alpha-2) are required');
      const ctx = await openContext(config);
      const workspace = await ctx.db.tx((tx) => createWorkspace(tx, { name: values.name as string, country: values.country as string }));
      await ctx.db.close();
      process.stdout.write(`${JSON.stringify({ id: workspace.id, name: workspace.name, country: workspace.country }, null, 2)}\n`);
      return;
    }
    case 'credentials': {
      if (sub !== 'create') fail('unknown credentials command');
      const { values } = parseArgs({ args: rest, options: { workspace: { type: 'string' }, scopes: { type: 'string' } } });
      if (!values.workspace) fail('--workspace is required');
      const scopes = values.scopes?.split(',').map((s) => s.trim()).filter(Boolean);
      const workspaceId = values.workspace;
      if (!isUuid(workspaceId)) fail(`no workspace ${workspaceId}`);
      const ctx = await openContext(config);
      // The same issuing rule as the operator API and the pages: known scopes, an existing workspace.
      const issued = await ctx.db.tx((tx) => issueCredential(tx, ctx.box, workspaceId, { scopes })).catch(async (err: unknown) => {
        await ctx.db.close();
        if (err instanceof DomainError) fail(err.category === 'not_found' ? `no workspace ${values.workspace}` : err.message);
        throw err;
      });
      await ctx.db.close();
      process.stdout.write(`${JSON.stringify(issued, null, 2)}\n`);
      return;
    }
    case 'listen': {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { ...CLIENT_FLAGS, 'forward-to': { type: 'string' }, events: { type: 'string' }, secret: { type: 'string' }, since: { type: 'string' }, state: { type: 'string' } },
      });
      if (!values['forward-to']) fail('--forward-to URL is required');
      if (values.since !== undefined && !/^evt_[A-Za-z0-9_-]{1,64}$/.test(values.since)) fail('--since takes an event id (evt_…)');
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      process.once('SIGTERM', () => controller.abort());
      await listen({
        corridor: clientFromFlags(values, fail),
        forwardTo: values['forward-to'],
        types: eventTypesOf(values.events),
        secret: values.secret,
        lastEventId: values.since,
        stateFile: values.state ?? defaultStateFile(),
        signal: controller.signal,
      });
      return;
    }
    case 'trigger': {
      const { values, positionals } = parseArgs({ args: argv.slice(1), options: CLIENT_FLAGS, allowPositionals: true });
      if (positionals.length !== 1) fail('trigger takes one event type');
      await trigger(clientFromFlags(values, fail), positionals[0] as string);
      return;
    }
    case 'chain': {
      if (sub === 'encrypt-key') return encryptChainKey(config);
      if (sub === 'xpub') return chainXpub();
      fail('unknown chain command');
      return;
    }
    case 'audit': {
      if (sub !== 'verify') fail('unknown audit command');
      const { values } = parseArgs({ args: rest, options: { workspace: { type: 'string' }, operator: { type: 'boolean' } } });
      if (values.workspace !== undefined && values.operator) fail('give --workspace ID or --operator, not both');
      if (values.workspace !== undefined && !isUuid(values.workspace)) fail(`no workspace ${values.workspace}`);
      const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const { ok, output } = await auditVerify(db, { workspaceId: values.workspace }).finally(() => db.close());
      process.stdout.write(output);
      if (!ok) process.exitCode = 1;
      return;
    }
    case 'screening':
      await screeningCommand(config, sub, rest, fail);
      return;
    case 'payouts': {
      if (sub !== 'import') fail('unknown payouts command (payouts import FILE.csv)');
      const { values, positionals } = parseArgs({ args: rest, options: CLIENT_FLAGS, allowPositionals: true });
      if (positionals.length !== 1) fail('payouts import takes one CSV file');
      const summary = await importPayouts(clientFromFlags(values, fail), positionals[0] as string, (text) => process.stdout.write(text), (text) => process.stderr.write(`${text}\n`));
      if (summary.invalid) fail(`${summary.invalid} of ${summary.rows} rows need fixing; nothing was sent`);
      process.stderr.write(`${summary.sent} payouts sent or already sent, ${summary.refused} refused, of ${summary.rows}\n`);
      if (summary.refused) process.exitCode = 1;
      return;
    }
    case 'bank-sim': {
      const { values } = parseArgs({ args: argv.slice(1), options: { dir: { type: 'string' }, 'interval-ms': { type: 'string', default: '1000' }, once: { type: 'boolean', default: false } } });
      const intervalMs = Number(values['interval-ms']);
      if (!values.dir) fail('--dir DIR is required (the folder the connectors file\'s "bank".directory names)');
      if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 3_600_000) fail('--interval-ms must be an integer from 50 to 3600000');
      await bankSim({ dir: values.dir, intervalMs, once: values.once ?? false });
      return;
    }
    default:
      fail(command ? `unknown command ${command}` : 'no command');
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const hint = settingHint(err);
  process.stderr.write(`corridor: ${hint ?? (err instanceof Error ? err.message : String(err))}\n`);
  process.exit(1);
});
