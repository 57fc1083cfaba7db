import type { ConditionSource } from '../../controls/alerts/alerts.port.js';
import { latestStatements } from '../../controls/reconciliation/reconciliation.port.js';
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
    const bank = bankConnectorOf(ctx);
    if (!bank) return [];
    const latest = new Map((await latestStatements(ctx.db)).map((s) => [s.bank_account, s]));
    const firstFiles = new Map((await repo.firstDeliveryByAccount(ctx.db)).map((f) => [f.debtor_account, f.first]));
    return bank.runtime.config.accounts.flatMap((account) => {
      if (filter.account && account.id !== filter.account) return [];
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
