import type { ConditionSource } from '../../controls/alerts/alerts.port.js';
import { latestStatements, numberedStatements } from '../../controls/reconciliation/reconciliation.port.js';
import { bankConnectorOf } from './bank.connector.js';
import * as repo from './bank.repository.js';

/** The files named in one alert at most (the summary counts them all). */
const FILES_NAMED_MAX = 20;

/**
 * A payment file the bank has not answered: delivered to its inbox `threshold` minutes ago or more
 * and no status report (pain.002) about its message since. The bank may not have received it, may
 * not process it, or its answers no longer reach Corridor's outbox poll: the operator asks the bank.
 */
export const fileUnacknowledged: ConditionSource = {
  name: 'bank.file_unacknowledged',
  unit: 'minutes',
  defaultThreshold: 120,
  filterKeys: ['account'],
  description: 'A payment file delivered to the bank N minutes ago or more that no status report (pain.002) has answered',
  async check(ctx, { threshold, filter }) {
    if (!bankConnectorOf(ctx)) return [];
    const files = (await repo.unacknowledgedFiles(ctx.db, Math.max(0, threshold), 500)).filter((f) => !filter.account || f.debtor_account === filter.account);
    const byAccount = new Map<string, typeof files>();
    for (const f of files) byAccount.set(f.debtor_account, [...(byAccount.get(f.debtor_account) ?? []), f]);
    return [...byAccount].map(([account, unanswered]) => {
      const oldest = unanswered[0] as (typeof unanswered)[number];
      const minutes = Math.floor((Date.now() - oldest.delivered_at.getTime()) / 60_000);
      return {
        subject: account,
        summary: `${unanswered.length} payment file(s) from bank account ${account} have had no status report from the bank, the oldest (${oldest.file_name}) for ${minutes} min`,
        details: { account, count: unanswered.length, oldest: { fileName: oldest.file_name, msgId: oldest.msg_id, deliveredAt: oldest.delivered_at.toISOString() }, files: unanswered.slice(0, FILES_NAMED_MAX).map((f) => f.file_name) },
      };
    });
  },
};

/** The configured bank accounts a condition looks at (those its filter names); none without the bank connector. */
function accountsLookedAt(ctx: Parameters<ConditionSource['check']>[0], filter: { account?: string | undefined }) {
  return (bankConnectorOf(ctx)?.runtime.config.accounts ?? []).filter((account) => !filter.account || account.id === filter.account);
}

/**
 * A bank account's end-of-day statement (camt.053) missing: the latest arrived `threshold` hours ago
 * or more (or none ever, counted from the account's first delivered file). The day cannot be
 * reconciled until it comes: the operator asks the bank for it.
 */
export const statementMissing: ConditionSource = {
  name: 'bank.statement_missing',
  unit: 'hours',
  defaultThreshold: 30,
  filterKeys: ['account'],
  description: "A bank account whose latest end-of-day statement (camt.053) arrived N hours ago or more (none ever: counted from the account's first file)",
  async check(ctx, { threshold, filter }) {
    const accounts = accountsLookedAt(ctx, filter);
    if (accounts.length === 0) return [];
    const latest = new Map((await latestStatements(ctx.db)).map((s) => [s.bank_account, s]));
    const firstFiles = new Map((await repo.firstDeliveryByAccount(ctx.db)).map((f) => [f.debtor_account, f.first]));
    return accounts.flatMap((account) => {
      const last = latest.get(account.id);
      const since = last?.arrived_at ?? firstFiles.get(account.id);
      if (!since) return [];
      const hours = (Date.now() - since.getTime()) / 3_600_000;
      if (hours < threshold) return [];
      return [
        {
          subject: account.id,
          summary: last
            ? `No statement for bank account ${account.id} for ${Math.floor(hours)} h: the latest (for ${last.statement_date}) arrived ${last.arrived_at.toISOString()}`
            : `No statement ever for bank account ${account.id}, which has sent files for ${Math.floor(hours)} h`,
          details: { account: account.id, latestStatementDate: last?.statement_date ?? null, latestArrivedAt: last?.arrived_at.toISOString() ?? null },
        },
      ];
    });
  },
};

/** The missing numbers named in one alert at most (the details count them all). */
const NUMBERS_NAMED_MAX = 20;

/**
 * The latest numbered statements of an account the gap alert reads at each evaluation: more than a
 * year of daily statements. A gap further back is not looked for again (it was alerted while recent).
 */
export const STATEMENTS_READ_MAX = 400;

/** A run of missing sequence numbers, both ends included. */
type Missing = { from: bigint; to: bigint };

const written = (runs: readonly Missing[]): string => runs.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(', ');

/**
 * The numbers missing from one account's statements, walked in day order: a statement numbered more
 * than one past the one before it leaves the numbers between missing (a number lower than the one
 * before starts a new run: a bank that counts again from 1 each year), and the number after the
 * latest is missing once the latest is `hours` old.
 */
function missingNumbers(statements: readonly { seq: bigint; arrivedAt: Date }[], hours: number): Missing[] {
  const runs: Missing[] = [];
  let previous: bigint | undefined;
  for (const { seq } of statements) {
    if (previous !== undefined && seq > previous + 1n) runs.push({ from: previous + 1n, to: seq - 1n });
    previous = seq;
  }
  const latest = statements[statements.length - 1];
  if (latest && (Date.now() - latest.arrivedAt.getTime()) / 3_600_000 >= hours) runs.push({ from: latest.seq + 1n, to: latest.seq + 1n });
  return runs;
}

/**
 * A gap in a bank account's statement sequence numbers (camt.053 ElctrncSeqNb, or LglSeqNb where the
 * bank gives only that): a statement has arrived whose number skips one or more, or the statement
 * after the latest has not come `threshold` hours after it. A statement the bank sent never reached
 * Corridor (or the bank never sent it): the operator asks the bank for the numbers named.
 */
export const statementSequenceGap: ConditionSource = {
  name: 'bank.statement_sequence_gap',
  unit: 'hours',
  defaultThreshold: 30,
  filterKeys: ['account'],
  description: "A bank account whose statement sequence numbers (ElctrncSeqNb, else LglSeqNb) skip one, or whose next numbered statement has not come N hours after the latest",
  async check(ctx, { threshold, filter }) {
    const accounts = accountsLookedAt(ctx, filter);
    if (accounts.length === 0) return [];
    const rows = await numberedStatements(
      ctx.db,
      accounts.map((a) => a.id),
      STATEMENTS_READ_MAX,
    );
    return accounts.flatMap((account) => {
      const own = rows.filter((r) => r.bank_account === account.id);
      // The electronic numbers when the bank gives them; the legal ones only from a bank that gives nothing else.
      const kind = own.some((r) => r.electronic_seq !== null) ? 'ElctrncSeqNb' : 'LglSeqNb';
      const numbered = own.flatMap((r) => {
        const seq = kind === 'ElctrncSeqNb' ? r.electronic_seq : r.legal_seq;
        return seq === null ? [] : [{ seq: BigInt(seq), arrivedAt: r.arrived_at }];
      });
      const runs = missingNumbers(numbered, Math.max(0, threshold));
      if (runs.length === 0) return [];
      const count = runs.reduce((n, r) => n + (r.to - r.from + 1n), 0n);
      const latest = numbered[numbered.length - 1] as (typeof numbered)[number];
      return [
        {
          subject: account.id,
          summary: `Bank account ${account.id} is missing statement(s) numbered ${written(runs.slice(0, NUMBERS_NAMED_MAX))}${runs.length > NUMBERS_NAMED_MAX ? ' and more' : ''} (${kind}); the latest received is number ${latest.seq}`,
          details: { account: account.id, sequence: kind, missing: runs.slice(0, NUMBERS_NAMED_MAX).map((r) => ({ from: r.from.toString(), to: r.to.toString() })), missingCount: count.toString(), latestNumber: latest.seq.toString() },
        },
      ];
    });
  },
};
