import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './platform/config.js';
import type { Role } from './cli/start.js';
import { DomainError } from './platform/lib/errors.js';
import { isUuid } from './platform/lib/ids.js';
import { clientFromFlags, CLIENT_FLAGS, settingHint } from './cli/client.js';
import { parseAmount } from './platform/lib/money.js';

// Each command imports what it runs when it runs (below): the application's modules take seconds to
// load, which `--help`, `--version` and the simulators, the sandbox's own processes, do not need.

const CLIENT_NOTE = `They take --base-url, --client-id, --client-secret or CORRIDOR_BASE_URL, CORRIDOR_CLIENT_ID, CORRIDOR_CLIENT_SECRET.`;

/** Each command: its usage line(s) and what it does, for `corridor <command> --help` and the overall usage. */
const COMMANDS: Record<string, { usage: string; about: string; client?: boolean }> = {
  start: { usage: 'start [--role all|api|worker]', about: 'run the API and/or the workers (default all)' },
  migrate: { usage: 'migrate', about: 'apply database migrations' },
  workspaces: { usage: 'workspaces create --name NAME --country CC', about: 'create a workspace' },
  credentials: { usage: 'credentials create --workspace ID [--scopes a,b]', about: 'issue a credential (secret shown once)' },
  listen: {
    usage: 'listen --forward-to URL [--events a,b] [--since EVENT_ID] [--state FILE] [--secret whsec_...]',
    about:
      'forward live events to a local URL, signed as deliveries are (X-Service-* and Standard Webhooks headers) with the printed secret,\nthe same at every start (kept in FILE); resumes after the last event forwarded to that URL (kept in FILE, default\n~/.corridor/listen.json) or after --since',
    client: true,
  },
  trigger: {
    usage: 'trigger <event-type> [--override [resource:]field=value ...]',
    about:
      'cause an event in the sandbox (payout.paid, application.approved, ...); --override sets a field of a request it sends\n(payout:clientRef=inv-7, beneficiary:name=Ada, amount=12.50: the resource defaults to the event\'s object)',
    client: true,
  },
  logs: {
    usage: 'logs tail [--method GET|POST|...] [--failed] [--interval-ms N]',
    about: "print the workspace's API requests as they are logged, from now on, one line each (time, status, method, path,\nduration, request id, Idempotency-Key, caller); the dashboard's Request logs page shows their redacted bodies",
    client: true,
  },
  events: {
    usage: 'events resend EVENT_ID [--webhook ENDPOINT_ID]',
    about: 'send an event again to the webhook endpoints it was delivered to (or only ENDPOINT_ID): a finished delivery gets\none more attempt, one waiting for its next attempt has it now; exit 1 when none was resent',
    client: true,
  },
  payouts: { usage: 'payouts import FILE.csv', about: 'send the payouts of a CSV file, each with its own Idempotency-Key; nothing is sent while a row needs fixing', client: true },
  audit: { usage: 'audit verify [--workspace ID | --operator]', about: "check an audit chain (default the operator's); exit 1 when broken" },
  ledger: {
    usage: 'ledger verify',
    about: 'check the ledger invariants (running balances match the transfers, no customer balance below zero, each currency sums to\nzero); exit 1 when one is broken (after a restore, before serving)',
  },
  screening: { usage: 'screening load --list LIST --file PATH', about: "load a sanctions list file as a new version (LIST: ofac-sdn, un, eu, uk-ofsi;\n--file again for each file of OFAC's CSV set)" },
  chain: {
    usage: 'chain encrypt-key < secret | chain xpub < mnemonic',
    about:
      "encrypt-key: seal a hot wallet key, deposit mnemonic or xpub (stdin) for the connectors file's chains section, under\nCORRIDOR_ENCRYPTION_KEY (it names the key it used); xpub: the account xpub of a mnemonic (a watch-only deposit wallet)",
  },
  bank: { usage: 'bank encrypt-secret < secret', about: "seal Corridor's PGP private key or its passphrase (stdin) for the connectors file's \"bank\".pgp section" },
  'bank-sim': {
    usage: 'bank-sim --dir DIR [--interval-ms N] [--once] [--pgp-key FILE --corridor-public-key FILE [--pgp-passphrase-file FILE]]',
    about: "the sandbox bank: answers the bank connector's pain.001 files in DIR/in into DIR/out by magic\namounts (docs/guides/bank-rails.md); with --pgp-key, PGP files only, as a bank's host-to-host service with PGP",
  },
  'ach-sim': { usage: 'ach-sim --dir DIR [--rules FILE.json] [--interval-ms N] [--once]', about: "the sandbox ACH bank: answers the ACH connector's NACHA files in DIR/in into DIR/out with\nreturns and notifications of change as the rules say (docs/guides/ach.md)" },
  'mobile-money': { usage: 'mobile-money encrypt-secret < secret', about: "seal the operator's API key or the callback secret (stdin) for the connectors file's \"mobile-money\" section" },
  'mobile-money-sim': {
    usage: 'mobile-money-sim --api-key K --callback-secret S [--port N] [--host H] [--lose-rate R] [--holder-name NAME]',
    about: 'the sandbox mobile-money provider: the GSMA Mobile Money API v1.2 with callbacks and magic values\n(docs/guides/mobile-money.md)',
  },
  'clearbank-sim': {
    usage: 'clearbank-sim --port N --token-file F --operator-public-key F --bank-private-key F --webhook-url URL [--lose-rate R] [--repeat-rate R] [--account-iban IBAN]',
    about: "the sandbox ClearBank: serves ClearBank's FPS and Confirmation of Payee endpoints and sends\nsigned webhooks, by magic account numbers (docs/guides/faster-payments.md)",
  },
  'paystack-sim': {
    usage: 'paystack-sim --secret-key-file F --webhook-url URL [--port N] [--host H] [--balance NGN] [--lose-rate R] [--repeat-rate R] [--account-name NAME]',
    about: "the sandbox Paystack: serves Paystack's balance, name enquiry, recipient and transfer endpoints and sends\nsigned webhooks, by magic account numbers (docs/guides/ngn-transfers.md)",
  },
};

const indent = (text: string): string => text.replace(/\n/g, '\n      ');

const USAGE = `Usage: corridor <command>

${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}\n      ${indent(c.about)}`)
  .join('\n')}

listen, trigger, events resend, logs tail, payouts import: ${CLIENT_NOTE}
Configuration comes from the environment; see docs/configuration.md.
\`corridor <command> --help\` prints the usage of one command; \`corridor --version\` the version.`;

/** The usage of one command. */
function commandUsage(name: string): string {
  const c = COMMANDS[name] as { usage: string; about: string; client?: boolean };
  return `Usage: corridor ${c.usage}\n\n${c.about}\n${c.client ? `\n${CLIENT_NOTE.replace('They take', 'It takes')}\n` : ''}`;
}

/** `--help` or `-h` anywhere (or `help` as the command). */
function wantsHelp(argv: string[]): boolean {
  return argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

/** A simulator's --port: a port number (0 for any free port where `anyAllowed`). */
function portFlag(value: string | undefined, anyAllowed: boolean): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < (anyAllowed ? 0 : 1) || port > 65535) fail('--port must be a port number');
  return port;
}

/** A simulator's --lose-rate or --repeat-rate: a share from 0 to 1. */
function rateFlag(name: string, value: string | undefined): number {
  const rate = Number(value);
  if (!(rate >= 0 && rate <= 1)) fail(`--${name} must be from 0 to 1`);
  return rate;
}

/** The version of this checkout (package.json). */
function version(): string {
  return (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * Help and version: `corridor --help` (or `help`) prints the whole usage, `corridor <command> --help`
 * (or `help <command>`) that command's, on stdout, exit 0; an unknown command is refused (exit 2),
 * with --help too. True when answered.
 */
function helpOrVersion(argv: string[]): boolean {
  if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
    process.stdout.write(`corridor ${version()}\n`);
    return true;
  }
  if (!wantsHelp(argv)) return false;
  const named = argv[0] === 'help' ? argv[1] : argv[0]?.startsWith('-') ? undefined : argv[0];
  if (named === undefined) process.stdout.write(`${USAGE}\n`);
  else if (Object.hasOwn(COMMANDS, named)) process.stdout.write(commandUsage(named));
  else fail(`unknown command ${named}`);
  return true;
}

async function main(argv: string[]): Promise<void> {
  if (helpOrVersion(argv)) return;
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'start': {
      const { values } = parseArgs({ args: argv.slice(1), options: { role: { type: 'string', default: 'all' } } });
      const role = values.role as Role;
      if (!['all', 'api', 'worker'].includes(role)) fail(`--role must be all, api or worker`);
      const { start } = await import('./cli/start.js');
      await start(config, role);
      return;
    }
    case 'migrate': {
      const [{ connect }, { migrate }, { CryptoBox }] = await Promise.all([import('./platform/db/db.js'), import('./platform/db/migrate.js'), import('./platform/lib/crypto-box.js')]);
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
      const [{ openContext }, { createWorkspace }] = await Promise.all([import('./runtime.js'), import('./domains/accounts/accounts.service.js')]);
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
      const [{ openContext }, { issueCredential }] = await Promise.all([import('./runtime.js'), import('./domains/auth/credentials.service.js')]);
      const ctx = await openContext(config);
      // The same issuing rule as the operator API and the pages: known scopes, an existing workspace.
      const issued = await ctx.db.tx((tx) => issueCredential(tx, ctx.box, { workspaceId }, { scopes })).catch(async (err: unknown) => {
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
      const { defaultStateFile, eventTypesOf, listen } = await import('./cli/listen.js');
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
      const { values, positionals } = parseArgs({ args: argv.slice(1), options: { ...CLIENT_FLAGS, override: { type: 'string', multiple: true } }, allowPositionals: true });
      if (positionals.length !== 1) fail('trigger takes one event type');
      const eventType = positionals[0] as string;
      const { parseOverrides, trigger } = await import('./cli/trigger.js');
      let overrides: string[] = [];
      try {
        overrides = values.override ?? [];
        parseOverrides(eventType, overrides);
      } catch (err) {
        fail((err as Error).message);
      }
      await trigger(clientFromFlags(values, fail), eventType, undefined, { overrides });
      return;
    }
    case 'logs': {
      if (sub !== 'tail') fail('unknown logs command (logs tail)');
      const { values } = parseArgs({ args: rest, options: { ...CLIENT_FLAGS, method: { type: 'string' }, failed: { type: 'boolean', default: false }, 'interval-ms': { type: 'string', default: '1000' } } });
      const intervalMs = Number(values['interval-ms']);
      if (!Number.isInteger(intervalMs) || intervalMs < 200 || intervalMs > 60_000) fail('--interval-ms must be an integer from 200 to 60000');
      const method = values.method?.toUpperCase();
      if (method !== undefined && !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) fail('--method must be GET, POST, PUT, PATCH or DELETE');
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      process.once('SIGTERM', () => controller.abort());
      const { tailLogs } = await import('./cli/logs.js');
      await tailLogs({ corridor: clientFromFlags(values, fail), intervalMs, method, failed: values.failed, signal: controller.signal, write: (line) => process.stdout.write(`${line}\n`) });
      return;
    }
    case 'events': {
      if (sub !== 'resend') fail('unknown events command (events resend EVENT_ID [--webhook ID])');
      const { values, positionals } = parseArgs({ args: rest, options: { ...CLIENT_FLAGS, webhook: { type: 'string' } }, allowPositionals: true });
      const eventId = positionals[0];
      if (positionals.length !== 1 || !eventId || !/^evt_[A-Za-z0-9_-]{1,64}$/.test(eventId)) fail('events resend takes one event id (evt_…)');
      if (values.webhook !== undefined && !isUuid(values.webhook)) fail(`--webhook takes a webhook endpoint id, not ${values.webhook}`);
      const { resendEvent } = await import('./cli/events.js');
      const summary = await resendEvent(clientFromFlags(values, fail), eventId, values.webhook, (line) => process.stdout.write(`${line}\n`));
      if (!summary.resent.length) process.exitCode = 1;
      return;
    }
    case 'chain': {
      if (sub === 'encrypt-key') return (await import('./cli/chain.js')).encryptChainKey(config);
      if (sub === 'xpub') return (await import('./cli/chain.js')).chainXpub();
      fail('unknown chain command');
      return;
    }
    case 'audit': {
      if (sub !== 'verify') fail('unknown audit command');
      const { values } = parseArgs({ args: rest, options: { workspace: { type: 'string' }, operator: { type: 'boolean' } } });
      if (values.workspace !== undefined && values.operator) fail('give --workspace ID or --operator, not both');
      if (values.workspace !== undefined && !isUuid(values.workspace)) fail(`no workspace ${values.workspace}`);
      const [{ connect }, { auditVerify }] = await Promise.all([import('./platform/db/db.js'), import('./cli/audit.js')]);
      const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const { ok, output } = await auditVerify(db, { workspaceId: values.workspace }).finally(() => db.close());
      process.stdout.write(output);
      if (!ok) process.exitCode = 1;
      return;
    }
    case 'ledger': {
      if (sub !== 'verify') fail('unknown ledger command');
      const [{ connect }, { ledgerInvariantViolations }] = await Promise.all([import('./platform/db/db.js'), import('./domains/ledger/ledger.service.js')]);
      const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const violations = await ledgerInvariantViolations(db).finally(() => db.close());
      process.stdout.write(violations.length === 0 ? 'ledger: every invariant holds\n' : `${JSON.stringify(violations, null, 2)}\nledger: ${violations.length} invariant violation(s)\n`);
      if (violations.length > 0) process.exitCode = 1;
      return;
    }
    case 'screening':
      await (await import('./cli/screening.js')).screeningCommand(config, sub, rest, fail);
      return;
    case 'payouts': {
      if (sub !== 'import') fail('unknown payouts command (payouts import FILE.csv)');
      const { values, positionals } = parseArgs({ args: rest, options: CLIENT_FLAGS, allowPositionals: true });
      if (positionals.length !== 1) fail('payouts import takes one CSV file');
      const { importPayouts } = await import('./cli/payouts-import.js');
      const summary = await importPayouts(clientFromFlags(values, fail), positionals[0] as string, (text) => process.stdout.write(text), (text) => process.stderr.write(`${text}\n`));
      if (summary.invalid) fail(`${summary.invalid} of ${summary.rows} rows need fixing; nothing was sent`);
      process.stderr.write(`${summary.sent} payouts sent or already sent, ${summary.refused} refused, of ${summary.rows}\n`);
      if (summary.refused) process.exitCode = 1;
      return;
    }
    case 'mobile-money': {
      if (sub === 'encrypt-secret') return (await import('./cli/mobile-money.js')).encryptMobileMoneySecret(config);
      fail('unknown mobile-money command (mobile-money encrypt-secret)');
      return;
    }
    case 'mobile-money-sim': {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { port: { type: 'string', default: '8090' }, host: { type: 'string', default: '127.0.0.1' }, 'api-key': { type: 'string' }, 'callback-secret': { type: 'string' }, 'lose-rate': { type: 'string', default: '0' }, 'holder-name': { type: 'string' } },
      });
      if (!values['api-key'] || !values['callback-secret']) fail('--api-key and --callback-secret are required (the plain values the connectors file holds sealed)');
      const port = portFlag(values.port, true);
      const loseRate = rateFlag('lose-rate', values['lose-rate']);
      const { mobileMoneySim } = await import('./cli/mobile-money.js');
      await mobileMoneySim({ port, host: values.host ?? '127.0.0.1', apiKey: values['api-key'] as string, callbackSecret: values['callback-secret'] as string, loseRate, holderName: values['holder-name'] });
      return;
    }
    case 'bank': {
      if (sub === 'encrypt-secret') return (await import('./cli/bank-sim.js')).encryptBankSecret(config);
      fail('unknown bank command (bank encrypt-secret)');
      return;
    }
    case 'bank-sim': {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { dir: { type: 'string' }, 'interval-ms': { type: 'string', default: '1000' }, once: { type: 'boolean', default: false }, 'pgp-key': { type: 'string' }, 'pgp-passphrase-file': { type: 'string' }, 'corridor-public-key': { type: 'string' } },
      });
      const intervalMs = Number(values['interval-ms']);
      if (!values.dir) fail('--dir DIR is required (the folder the connectors file\'s "bank".directory names)');
      if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 3_600_000) fail('--interval-ms must be an integer from 50 to 3600000');
      if ((values['pgp-key'] === undefined) !== (values['corridor-public-key'] === undefined)) fail('--pgp-key (the bank\'s private key) and --corridor-public-key go together');
      const pgp = values['pgp-key'] ? { privateKeyFile: values['pgp-key'], passphraseFile: values['pgp-passphrase-file'], corridorPublicKeyFile: values['corridor-public-key'] as string } : undefined;
      const { bankSim } = await import('./cli/bank-sim.js');
      await bankSim({ dir: values.dir, intervalMs, once: values.once ?? false, pgp });
      return;
    }
    case 'ach-sim': {
      const { values } = parseArgs({ args: argv.slice(1), options: { dir: { type: 'string' }, rules: { type: 'string' }, 'interval-ms': { type: 'string', default: '1000' }, once: { type: 'boolean', default: false } } });
      const intervalMs = Number(values['interval-ms']);
      if (!values.dir) fail('--dir DIR is required (the folder the connectors file\'s "ach".directory names)');
      if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 3_600_000) fail('--interval-ms must be an integer from 50 to 3600000');
      const { achSim, readSandboxRules } = await import('./cli/ach-sim.js');
      await achSim({ dir: values.dir, rules: values.rules ? readSandboxRules(values.rules) : [], intervalMs, once: values.once ?? false });
      return;
    }
    case 'clearbank-sim': {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: {
          port: { type: 'string', default: '4010' },
          'token-file': { type: 'string' },
          'operator-public-key': { type: 'string' },
          'bank-private-key': { type: 'string' },
          'webhook-url': { type: 'string' },
          'lose-rate': { type: 'string', default: '0' },
          'repeat-rate': { type: 'string', default: '0' },
          'account-iban': { type: 'string', default: 'GB29NWBK60161331926819' },
        },
      });
      const port = portFlag(values.port, false);
      const loseRate = rateFlag('lose-rate', values['lose-rate']);
      const repeatRate = rateFlag('repeat-rate', values['repeat-rate']);
      const tokenFile = values['token-file'];
      const operatorPublicKey = values['operator-public-key'];
      const bankPrivateKey = values['bank-private-key'];
      const webhookUrl = values['webhook-url'];
      if (!tokenFile || !operatorPublicKey || !bankPrivateKey || !webhookUrl) fail('--token-file, --operator-public-key, --bank-private-key and --webhook-url are required');
      const { clearBankSim } = await import('./cli/clearbank-sim.js');
      await clearBankSim({ port, tokenFile, operatorPublicKey, bankPrivateKey, webhookUrl, loseRate, repeatRate, accountIban: values['account-iban'].replace(/\s+/g, '').toUpperCase() });
      return;
    }
    case 'paystack-sim': {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: {
          port: { type: 'string', default: '4020' },
          host: { type: 'string', default: '127.0.0.1' },
          'secret-key-file': { type: 'string' },
          'webhook-url': { type: 'string' },
          balance: { type: 'string', default: '100000000.00' },
          'lose-rate': { type: 'string', default: '0' },
          'repeat-rate': { type: 'string', default: '0' },
          'account-name': { type: 'string' },
        },
      });
      const secretKeyFile = values['secret-key-file'];
      const webhookUrl = values['webhook-url'];
      if (!secretKeyFile || !webhookUrl) fail('--secret-key-file (the file the connectors file\'s "paystack".secretKeyFile names) and --webhook-url are required');
      if (!URL.canParse(webhookUrl)) fail('--webhook-url must be a URL');
      const { paystackSim } = await import('./cli/paystack-sim.js');
      await paystackSim({
        port: portFlag(values.port, true),
        host: values.host ?? '127.0.0.1',
        secretKeyFile,
        webhookUrl,
        balanceMinor: parseAmount(values.balance, 'NGN', '--balance', { allowZero: true }),
        loseRate: rateFlag('lose-rate', values['lose-rate']),
        repeatRate: rateFlag('repeat-rate', values['repeat-rate']),
        accountName: values['account-name'],
      });
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
