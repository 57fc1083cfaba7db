import type { Sql } from '../../platform/db/db.js';

/** All SQL of the Paystack connector's own tables (migration 0110_paystack.sql). */

export type TransferStatus = 'pending' | 'awaiting_balance' | 'sending' | 'sent' | 'success' | 'failed' | 'reversed' | 'held' | 'released';

export interface NewTransfer {
  payoutId: string;
  workspaceId: string;
  amountMinor: bigint;
  reference: string;
  instruction: string;
  status: 'pending' | 'held';
  heldReason: string | null;
}

export interface TransferRow {
  payout_id: string;
  workspace_id: string;
  amount_minor: string;
  reference: string;
  instruction: string;
  status: TransferStatus;
  recipient_code: string | null;
  transfer_code: string | null;
  held_reason: string | null;
  failure_reason: string | null;
  attempts: number;
  last_error: string | null;
  accepted_at: Date;
  sent_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `payout_id::text AS payout_id, workspace_id::text AS workspace_id, amount_minor::text AS amount_minor, reference, instruction, status,
  recipient_code, transfer_code, held_reason, failure_reason, attempts, last_error, accepted_at, sent_at, updated_at`;

/** Records payouts handed over; one handed over twice is recorded once. */
export async function insertTransfers(sql: Sql, rows: readonly NewTransfer[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO paystack_transfers (payout_id, workspace_id, amount_minor, reference, instruction, status, held_reason)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::text[])
     ON CONFLICT (payout_id) DO NOTHING`,
    [rows.map((r) => r.payoutId), rows.map((r) => r.workspaceId), rows.map((r) => r.amountMinor.toString()), rows.map((r) => r.reference), rows.map((r) => r.instruction), rows.map((r) => r.status), rows.map((r) => r.heldReason)],
  );
}

export async function findTransfer(sql: Sql, payoutId: string, lock = false): Promise<TransferRow | undefined> {
  const [row] = await sql.query<TransferRow>(`SELECT ${COLUMNS} FROM paystack_transfers WHERE payout_id = $1${lock ? ' FOR UPDATE' : ''}`, [payoutId]);
  return row;
}

export async function findByReference(sql: Sql, reference: string): Promise<TransferRow | undefined> {
  const [row] = await sql.query<TransferRow>(`SELECT ${COLUMNS} FROM paystack_transfers WHERE reference = $1 FOR UPDATE`, [reference]);
  return row;
}

/** Lets a payout go before it was sent; one that may have reached Paystack already answers false. */
export async function releaseTransfer(sql: Sql, payoutId: string): Promise<boolean> {
  const [row] = await sql.query<{ status: TransferStatus }>('SELECT status FROM paystack_transfers WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return true;
  if (!['pending', 'awaiting_balance', 'held', 'released'].includes(row.status)) return false;
  await sql.query("UPDATE paystack_transfers SET status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
  return true;
}

/**
 * Marks a transfer about to be sent, before the call: from then on a retry (or another worker after
 * a crash) verifies by reference before sending again. False when it is not waiting to be sent.
 */
export async function markSending(sql: Sql, payoutId: string, recipientCode: string): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE paystack_transfers SET status = 'sending', recipient_code = $2, attempts = attempts + 1, updated_at = now()
      WHERE payout_id = $1 AND status IN ('pending', 'awaiting_balance', 'sending') RETURNING payout_id`,
    [payoutId, recipientCode],
  );
  return rows.length > 0;
}

export async function markAwaitingBalance(sql: Sql, payoutId: string, why: string): Promise<void> {
  await sql.query("UPDATE paystack_transfers SET status = 'awaiting_balance', last_error = $2, updated_at = now() WHERE payout_id = $1 AND status IN ('pending', 'awaiting_balance', 'sending')", [payoutId, why]);
}

export async function recordError(sql: Sql, payoutId: string, message: string): Promise<void> {
  await sql.query('UPDATE paystack_transfers SET last_error = $2, updated_at = now() WHERE payout_id = $1', [payoutId, message.slice(0, 2000)]);
}

/** Paystack has the transfer: its code kept, waiting for its outcome. */
export async function markSent(sql: Sql, payoutId: string, transferCode: string): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE paystack_transfers SET status = 'sent', transfer_code = $2, sent_at = coalesce(sent_at, now()), last_error = NULL, updated_at = now()
      WHERE payout_id = $1 AND status IN ('pending', 'awaiting_balance', 'sending') RETURNING payout_id`,
    [payoutId, transferCode],
  );
  return rows.length > 0;
}

export async function markOutcome(sql: Sql, payoutId: string, status: 'success' | 'failed' | 'reversed', transferCode: string | null, failureReason: string | null): Promise<void> {
  await sql.query(
    `UPDATE paystack_transfers SET status = $2, transfer_code = coalesce($3, transfer_code), failure_reason = coalesce($4, failure_reason), sent_at = coalesce(sent_at, now()), updated_at = now()
      WHERE payout_id = $1`,
    [payoutId, status, transferCode, failureReason],
  );
}

export async function hold(sql: Sql, payoutId: string, reason: string): Promise<void> {
  await sql.query("UPDATE paystack_transfers SET status = 'held', held_reason = $2, updated_at = now() WHERE payout_id = $1", [payoutId, reason]);
}

/** Transfers sent whose webhook has not come within `waitSeconds`, and transfers left mid-send, oldest first. */
export function dueForVerify(sql: Sql, waitSeconds: number, limit: number): Promise<TransferRow[]> {
  return sql.query<TransferRow>(
    `SELECT ${COLUMNS} FROM paystack_transfers
      WHERE (status = 'sent' AND sent_at <= now() - make_interval(secs => $1::double precision))
         OR (status = 'sending' AND updated_at <= now() - make_interval(secs => $1::double precision))
      ORDER BY updated_at, payout_id LIMIT $2`,
    [waitSeconds, limit],
  );
}

/** How many payouts wait for the provider balance, and how much they need together (kobo). */
export async function awaitingBalanceTotal(sql: Sql): Promise<{ count: number; amountMinor: bigint }> {
  const [row] = await sql.query<{ count: number; amount_minor: string }>("SELECT count(*)::int AS count, COALESCE(sum(amount_minor), 0)::text AS amount_minor FROM paystack_transfers WHERE status = 'awaiting_balance'");
  return { count: row?.count ?? 0, amountMinor: BigInt(row?.amount_minor ?? '0') };
}

/** Payouts waiting for the provider balance, oldest first (they are sent in that order when it allows). */
export function awaitingBalance(sql: Sql, limit: number): Promise<TransferRow[]> {
  return sql.query<TransferRow>(`SELECT ${COLUMNS} FROM paystack_transfers WHERE status = 'awaiting_balance' ORDER BY accepted_at, payout_id LIMIT $1`, [limit]);
}

export async function findRecipient(sql: Sql, workspaceId: string, bankCode: string, accountNumber: string): Promise<string | undefined> {
  const [row] = await sql.query<{ recipient_code: string }>('SELECT recipient_code FROM paystack_recipients WHERE workspace_id = $1 AND bank_code = $2 AND account_number = $3', [workspaceId, bankCode, accountNumber]);
  return row?.recipient_code;
}

export async function insertRecipient(sql: Sql, workspaceId: string, bankCode: string, accountNumber: string, recipientCode: string): Promise<void> {
  await sql.query('INSERT INTO paystack_recipients (workspace_id, bank_code, account_number, recipient_code) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [workspaceId, bankCode, accountNumber, recipientCode]);
}

/** Records a webhook by the hash of its raw body; false when it was taken in before. */
export async function insertWebhook(sql: Sql, w: { sha256: string; event: string; reference: string | null; outcome: string }): Promise<boolean> {
  const rows = await sql.query('INSERT INTO paystack_webhooks (sha256, event, reference, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING RETURNING sha256', [w.sha256, w.event, w.reference, w.outcome]);
  return rows.length > 0;
}

export async function insertException(sql: Sql, e: { id: string; source: string; reference: string | null; payoutId: string | null; reason: string }): Promise<void> {
  await sql.query('INSERT INTO paystack_exceptions (id, source, reference, payout_id, reason) VALUES ($1, $2, $3, $4, $5)', [e.id, e.source, e.reference, e.payoutId, e.reason.slice(0, 2000)]);
}

export interface ExceptionRow {
  id: string;
  source: string;
  reference: string | null;
  payout_id: string | null;
  reason: string;
  created_at: Date;
}

export function listExceptions(sql: Sql, limit: number): Promise<ExceptionRow[]> {
  return sql.query<ExceptionRow>('SELECT id::text AS id, source, reference, payout_id::text AS payout_id, reason, created_at FROM paystack_exceptions ORDER BY created_at DESC, id DESC LIMIT $1', [limit]);
}

export async function upsertBalances(sql: Sql, balances: readonly { currency: string; balanceMinor: bigint }[], at: Date): Promise<void> {
  for (const b of balances) {
    await sql.query(
      'INSERT INTO paystack_balances (currency, balance_minor, read_at) VALUES ($1, $2, $3) ON CONFLICT (currency) DO UPDATE SET balance_minor = EXCLUDED.balance_minor, read_at = EXCLUDED.read_at',
      [b.currency, b.balanceMinor.toString(), at],
    );
  }
}

export function balances(sql: Sql): Promise<{ currency: string; balance_minor: string; read_at: Date }[]> {
  return sql.query('SELECT currency, balance_minor::text AS balance_minor, read_at FROM paystack_balances ORDER BY currency');
}

/** A dedicated virtual account issued through Paystack (migration 0180). */
export interface DedicatedAccountRow {
  virtual_account_id: string;
  workspace_id: string;
  account_number: string;
  dedicated_account_id: string;
  customer_code: string;
  bank_slug: string;
}

const DEDICATED_COLUMNS = 'virtual_account_id::text AS virtual_account_id, workspace_id::text AS workspace_id, account_number, dedicated_account_id::text AS dedicated_account_id, customer_code, bank_slug';

/** Records the account issued for a virtual account; one recorded before (a repeated issuance) is kept. */
export async function insertDedicatedAccount(sql: Sql, d: { virtualAccountId: string; workspaceId: string; accountNumber: string; dedicatedAccountId: number; customerCode: string; bankSlug: string }): Promise<void> {
  await sql.query(
    `INSERT INTO paystack_dedicated_accounts (virtual_account_id, workspace_id, account_number, dedicated_account_id, customer_code, bank_slug)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [d.virtualAccountId, d.workspaceId, d.accountNumber, d.dedicatedAccountId, d.customerCode, d.bankSlug],
  );
}

export async function findDedicatedAccount(sql: Sql, accountNumber: string): Promise<DedicatedAccountRow | undefined> {
  const [row] = await sql.query<DedicatedAccountRow>(`SELECT ${DEDICATED_COLUMNS} FROM paystack_dedicated_accounts WHERE account_number = $1`, [accountNumber]);
  return row;
}

/** Claims a charge by its reference (outcome `received`); false when it was taken in before (its credit, or its exception, stands). */
export async function insertCharge(sql: Sql, c: { reference: string; accountNumber: string | null; amountMinor: bigint }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO paystack_charges (reference, account_number, amount_minor, outcome) VALUES ($1, $2, $3, 'received')
     ON CONFLICT (reference) DO NOTHING RETURNING reference`,
    [c.reference, c.accountNumber, c.amountMinor.toString()],
  );
  return rows.length > 0;
}

/** What became of a charge claimed in this transaction. */
export async function settleCharge(sql: Sql, reference: string, s: { outcome: 'credited' | 'exception'; workspaceId: string | null; depositId: string | null }): Promise<void> {
  await sql.query("UPDATE paystack_charges SET outcome = $2, workspace_id = $3, deposit_id = $4 WHERE reference = $1 AND outcome = 'received'", [reference, s.outcome, s.workspaceId, s.depositId]);
}
