import type { Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import { maybeOne, one } from '../../platform/db/db.js';

export type ChainPayoutStatus = 'refused' | 'accepted' | 'signed' | 'sent' | 'conflict' | 'confirmed' | 'failed' | 'cancelled';

export interface ChainPayoutRow {
  payout_id: string;
  chain: string;
  currency: string;
  token: string;
  to_address: string;
  amount_minor: string;
  status: ChainPayoutStatus;
  from_address: string | null;
  nonce: string | null;
  mined_hash: string | null;
  mined_block: string | null;
  failure_reason: string | null;
  /** What the recipient's Transfer log says arrived, when it is not the amount. */
  delivered_minor: string | null;
  /** The node's own words on the last refusal, revert or conflict. */
  error_detail: string | null;
  created_at: Date;
  updated_at: Date;
}

const PAYOUT_COLUMNS = `payout_id, chain, currency, token, to_address, amount_minor::text AS amount_minor, status, from_address,
  nonce::text AS nonce, mined_hash, mined_block::text AS mined_block, failure_reason, delivered_minor::text AS delivered_minor, error_detail, created_at, updated_at`;

export interface ChainTransactionRow {
  hash: string;
  payout_id: string;
  chain: string;
  nonce: string;
  raw: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  signed_at: Date;
  sent_at: Date | null;
}

const TX_COLUMNS = `hash, payout_id, chain, nonce::text AS nonce, raw, max_fee_per_gas::text AS max_fee_per_gas,
  max_priority_fee_per_gas::text AS max_priority_fee_per_gas, signed_at, sent_at`;

export interface NewChainPayout {
  payoutId: string;
  chain: string;
  currency: string;
  token: string;
  toAddress: string;
  amountMinor: bigint;
  /** Why it is refused (no configured chain pays it, or it pays a deposit address of Corridor's): failed on the next look. */
  refused: string | null;
}

/** Records payouts handed over (a payout handed over twice is recorded once). */
export async function insertChainPayouts(sql: Sql, ps: readonly NewChainPayout[]): Promise<void> {
  if (ps.length === 0) return;
  await sql.query(
    `INSERT INTO chain_payouts (payout_id, chain, currency, token, to_address, amount_minor, status, failure_reason)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::text[], $8::text[])
     ON CONFLICT (payout_id) DO NOTHING`,
    [
      ps.map((p) => p.payoutId), ps.map((p) => p.chain), ps.map((p) => p.currency), ps.map((p) => p.token), ps.map((p) => p.toAddress),
      ps.map((p) => p.amountMinor.toString()), ps.map((p) => (p.refused ? 'refused' : 'accepted')), ps.map((p) => p.refused),
    ],
  );
}

/** Payouts recorded refused, with why, locked (others' skipped). */
export async function lockRefused(sql: Sql, limit: number): Promise<{ payout_id: string; failure_reason: string | null }[]> {
  return sql.query(`SELECT payout_id, failure_reason FROM chain_payouts WHERE status = 'refused' ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`, [limit]);
}

/** Which of these addresses are deposit addresses of the chain (Corridor's own). */
export async function knownDepositAddresses(sql: Sql, chain: string, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await sql.query<{ address: string }>(`SELECT address FROM chain_deposit_addresses WHERE chain = $1 AND address = ANY($2::text[])`, [chain, addresses.map((a) => a.toLowerCase())]);
  return new Set(rows.map((r) => r.address));
}

/** How many payouts of a chain wait for a nonce. */
export async function countAccepted(sql: Sql, chain: string): Promise<number> {
  return (await one<{ n: number }>(sql, `SELECT count(*)::int AS n FROM chain_payouts WHERE chain = $1 AND status = 'accepted'`, [chain])).n;
}

/** Payouts of a chain waiting for a nonce, oldest first, locked (others' locked rows skipped). */
export async function lockAccepted(sql: Sql, chain: string, limit: number): Promise<ChainPayoutRow[]> {
  return sql.query<ChainPayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM chain_payouts WHERE chain = $1 AND status = 'accepted'
      ORDER BY created_at, payout_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [chain, limit],
  );
}

/** The open payouts of a chain (signed or sent), locked, others' locked rows skipped. */
export async function lockInFlight(sql: Sql, chain: string, limit: number): Promise<ChainPayoutRow[]> {
  return sql.query<ChainPayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM chain_payouts WHERE chain = $1 AND status IN ('signed', 'sent')
      ORDER BY chain_payouts.nonce LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [chain, limit],
  );
}

/** One payout, locked, or undefined when another holds it. */
export async function lockChainPayout(sql: Sql, payoutId: string): Promise<ChainPayoutRow | undefined> {
  return maybeOne<ChainPayoutRow>(sql, `SELECT ${PAYOUT_COLUMNS} FROM chain_payouts WHERE payout_id = $1 FOR UPDATE SKIP LOCKED`, [payoutId]);
}

export async function findChainPayout(sql: Sql, payoutId: string): Promise<ChainPayoutRow | undefined> {
  return maybeOne<ChainPayoutRow>(sql, `SELECT ${PAYOUT_COLUMNS} FROM chain_payouts WHERE payout_id = $1`, [payoutId]);
}

/** The open payouts of a chain and their transactions, unlocked (what to broadcast and look up). */
export async function openTransactions(sql: Sql, chain: string, limit: number): Promise<(ChainTransactionRow & { status: ChainPayoutStatus })[]> {
  return sql.query(
    `SELECT t.hash, t.payout_id, t.chain, t.nonce::text AS nonce, t.raw, t.max_fee_per_gas::text AS max_fee_per_gas,
            t.max_priority_fee_per_gas::text AS max_priority_fee_per_gas, t.signed_at, t.sent_at, p.status
       FROM chain_payouts p JOIN chain_transactions t ON t.payout_id = p.payout_id
      WHERE p.chain = $1 AND p.status IN ('signed', 'sent')
      ORDER BY t.nonce, t.signed_at LIMIT $2`,
    [chain, limit],
  );
}

export async function transactionsOf(sql: Sql, payoutId: string): Promise<ChainTransactionRow[]> {
  return sql.query<ChainTransactionRow>(`SELECT ${TX_COLUMNS} FROM chain_transactions WHERE payout_id = $1 ORDER BY signed_at, hash`, [payoutId]);
}

export async function insertTransaction(
  sql: Sql,
  t: { hash: string; payoutId: string; chain: string; nonce: bigint; raw: string; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<void> {
  await sql.query(
    `INSERT INTO chain_transactions (hash, payout_id, chain, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [t.hash, t.payoutId, t.chain, t.nonce.toString(), t.raw, t.maxFeePerGas.toString(), t.maxPriorityFeePerGas.toString()],
  );
}

/** The transaction was handed to a node (the first time counts: replacement timing starts there). */
export async function markSent(sql: Sql, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await sql.query(`UPDATE chain_transactions SET sent_at = COALESCE(sent_at, now()) WHERE hash = ANY($1::text[])`, [hashes]);
  await sql.query(
    `UPDATE chain_payouts SET status = 'sent', updated_at = now()
      WHERE status = 'signed' AND payout_id IN (SELECT payout_id FROM chain_transactions WHERE hash = ANY($1::text[]))`,
    [hashes],
  );
}

export async function setSigned(sql: Sql, payoutId: string, fromAddress: string, nonce: bigint): Promise<void> {
  await sql.query(`UPDATE chain_payouts SET status = 'signed', from_address = $2, nonce = $3, updated_at = now() WHERE payout_id = $1`, [payoutId, fromAddress, nonce.toString()]);
}

export async function setStatus(sql: Sql, payoutId: string, status: ChainPayoutStatus, failureReason: string | null = null, errorDetail: string | null = null): Promise<void> {
  await sql.query(
    `UPDATE chain_payouts SET status = $2, failure_reason = COALESCE($3, failure_reason), error_detail = COALESCE($4, error_detail), updated_at = now() WHERE payout_id = $1`,
    [payoutId, status, failureReason, errorDetail],
  );
}

/** What the recipient's Transfer log says arrived (recorded when it is not the amount). */
export async function setDelivered(sql: Sql, payoutId: string, deliveredMinor: bigint): Promise<void> {
  await sql.query(`UPDATE chain_payouts SET delivered_minor = $2, updated_at = now() WHERE payout_id = $1`, [payoutId, deliveredMinor.toString()]);
}

/** A payout in conflict re-signed by the operator: its new nonce, back to signed (broadcast on the next look). */
export async function setResigned(sql: Sql, payoutId: string, nonce: bigint): Promise<void> {
  await sql.query(`UPDATE chain_payouts SET status = 'signed', nonce = $2, mined_hash = NULL, mined_block = NULL, updated_at = now() WHERE payout_id = $1`, [payoutId, nonce.toString()]);
}

/** Payouts of the chain not ended yet (accepted, signed, sent or in conflict), oldest first: the operator's list with ages. */
export async function openPayouts(sql: Sql, chain: string | null, limit: number): Promise<ChainPayoutRow[]> {
  return sql.query<ChainPayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM chain_payouts WHERE ($1::text IS NULL OR chain = $1) AND status IN ('accepted', 'signed', 'sent', 'conflict')
      ORDER BY created_at, payout_id LIMIT $2`,
    [chain, limit],
  );
}

/** How many payouts of the chain are on their way (signed, sent, in conflict), and when the oldest was handed over. */
export async function processingSummary(sql: Sql, chain: string): Promise<{ count: number; oldest: Date | null; conflicts: number; held: number }> {
  return one(
    sql,
    `SELECT count(*) FILTER (WHERE status IN ('signed', 'sent', 'conflict'))::int AS count,
            min(created_at) FILTER (WHERE status IN ('signed', 'sent', 'conflict')) AS oldest,
            count(*) FILTER (WHERE status = 'conflict')::int AS conflicts,
            count(*) FILTER (WHERE status = 'accepted')::int AS held
       FROM chain_payouts WHERE chain = $1 AND status IN ('accepted', 'signed', 'sent', 'conflict')`,
    [chain],
  );
}

/** The wallet's next nonce as Corridor keeps it, or undefined before its first payout. */
export async function readNextNonce(sql: Sql, chain: string, address: string): Promise<bigint | undefined> {
  const row = await maybeOne<{ next_nonce: string }>(sql, `SELECT next_nonce::text AS next_nonce FROM chain_nonces WHERE chain = $1 AND address = $2`, [chain, address]);
  return row ? BigInt(row.next_nonce) : undefined;
}

// The circuit breaker of a chain

export interface ChainBreakerRow {
  chain: string;
  open: boolean;
  reason: string | null;
  detail: string | null;
  opened_at: Date | null;
  streak_reason: string | null;
  streak_count: number;
}

const BREAKER_COLUMNS = `chain, open, reason, detail, opened_at, streak_reason, streak_count`;

export async function breaker(sql: Sql, chain: string): Promise<ChainBreakerRow> {
  return (
    (await maybeOne<ChainBreakerRow>(sql, `SELECT ${BREAKER_COLUMNS} FROM chain_breakers WHERE chain = $1`, [chain])) ?? {
      chain, open: false, reason: null, detail: null, opened_at: null, streak_reason: null, streak_count: 0,
    }
  );
}

/** Opens the breaker (kept open with its first reason when it is open already); answers whether this opened it. */
export async function openBreaker(sql: Sql, chain: string, reason: string, detail: string | null): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO chain_breakers (chain, open, reason, detail, opened_at) VALUES ($1, true, $2, $3, now())
     ON CONFLICT (chain) DO UPDATE SET open = true, reason = $2, detail = $3, opened_at = now(), updated_at = now() WHERE NOT chain_breakers.open
     RETURNING 1`,
    [chain, reason, detail],
  );
  return rows.length === 1;
}

/** One more refusal or revert: the streak grows when it has the same reason, else starts again; answers the streak. */
export async function recordStreak(sql: Sql, chain: string, reason: string): Promise<number> {
  const row = await one<{ streak_count: number }>(
    sql,
    `INSERT INTO chain_breakers (chain, streak_reason, streak_count) VALUES ($1, $2, 1)
     ON CONFLICT (chain) DO UPDATE SET streak_count = CASE WHEN chain_breakers.streak_reason = $2 THEN chain_breakers.streak_count + 1 ELSE 1 END,
       streak_reason = $2, updated_at = now()
     RETURNING streak_count`,
    [chain, reason],
  );
  return row.streak_count;
}

/** A payout went through: the streak of refusals ends. */
export async function endStreak(sql: Sql, chain: string): Promise<void> {
  await sql.query(`UPDATE chain_breakers SET streak_reason = NULL, streak_count = 0, updated_at = now() WHERE chain = $1 AND streak_count > 0`, [chain]);
}

/** The operator resumes the chain: closed, its streak forgotten; answers the row as it was (undefined: it was not open). */
export async function closeBreaker(sql: Sql, chain: string): Promise<ChainBreakerRow | undefined> {
  const before = await maybeOne<ChainBreakerRow>(sql, `SELECT ${BREAKER_COLUMNS} FROM chain_breakers WHERE chain = $1 AND open FOR UPDATE`, [chain]);
  if (!before) return undefined;
  await sql.query(`UPDATE chain_breakers SET open = false, streak_reason = NULL, streak_count = 0, updated_at = now() WHERE chain = $1`, [chain]);
  return before;
}

/** Where the payout's transaction was last seen mined (null, null: seen no more, after a reorg). */
export async function setMined(sql: Sql, payoutId: string, hash: string | null, block: bigint | null): Promise<void> {
  await sql.query(`UPDATE chain_payouts SET mined_hash = $2, mined_block = $3, updated_at = now() WHERE payout_id = $1`, [payoutId, hash, block?.toString() ?? null]);
}

/** Creates the wallet's nonce row at the chain's count when it has none yet. */
export async function ensureNonceRow(sql: Sql, chain: string, address: string, nextNonce: bigint): Promise<void> {
  await sql.query(`INSERT INTO chain_nonces (chain, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [chain, address, nextNonce.toString()]);
}

/** Takes the wallet's nonce row lock (held until the transaction ends) and answers its next nonce. */
export async function lockNonce(sql: Sql, chain: string, address: string): Promise<bigint> {
  const row = await one<{ next_nonce: string }>(sql, `SELECT next_nonce::text AS next_nonce FROM chain_nonces WHERE chain = $1 AND address = $2 FOR UPDATE`, [chain, address]);
  return BigInt(row.next_nonce);
}

export async function setNextNonce(sql: Sql, chain: string, address: string, next: bigint): Promise<void> {
  await sql.query(`UPDATE chain_nonces SET next_nonce = $3 WHERE chain = $1 AND address = $2`, [chain, address, next.toString()]);
}

/** The rail details of payouts (the hash counted, its chain): the mined version, else the latest signed. */
export async function railOf(sql: Sql, payoutIds: readonly string[]): Promise<Map<string, { txHash: string; chain: string }>> {
  if (payoutIds.length === 0) return new Map();
  const rows = await sql.query<{ payout_id: string; chain: string; hash: string }>(
    `SELECT DISTINCT ON (p.payout_id) p.payout_id, p.chain, COALESCE(p.mined_hash, t.hash) AS hash
       FROM chain_payouts p JOIN chain_transactions t ON t.payout_id = p.payout_id
      WHERE p.payout_id = ANY($1::uuid[]) ORDER BY p.payout_id, t.signed_at DESC`,
    [payoutIds],
  );
  return new Map(rows.map((r) => [r.payout_id, { txHash: r.hash, chain: r.chain }]));
}

// Deposits

export async function checkpoint(sql: Sql, chain: string): Promise<bigint | undefined> {
  const row = await maybeOne<{ next_block: string }>(sql, `SELECT next_block::text AS next_block FROM chain_checkpoints WHERE chain = $1 FOR UPDATE`, [chain]);
  return row ? BigInt(row.next_block) : undefined;
}

export async function readCheckpoint(sql: Sql, chain: string): Promise<bigint | undefined> {
  const row = await maybeOne<{ next_block: string }>(sql, `SELECT next_block::text AS next_block FROM chain_checkpoints WHERE chain = $1`, [chain]);
  return row ? BigInt(row.next_block) : undefined;
}

/** Starts the watcher's checkpoint when it has none (a concurrent start keeps the first). */
export async function ensureCheckpoint(sql: Sql, chain: string, nextBlock: bigint): Promise<void> {
  await sql.query(`INSERT INTO chain_checkpoints (chain, next_block) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [chain, nextBlock.toString()]);
}

/** Moves the checkpoint, with the hash of the block before it (the last scanned; null: not known). */
export async function setCheckpoint(sql: Sql, chain: string, nextBlock: bigint, lastHash: string | null): Promise<void> {
  await sql.query(`UPDATE chain_checkpoints SET next_block = $2, last_hash = $3, updated_at = now() WHERE chain = $1`, [chain, nextBlock.toString(), lastHash]);
}

/** Where the watcher is: the next block to scan and the hash it saw for the one before. */
export async function readCheckpointHash(sql: Sql, chain: string): Promise<{ nextBlock: bigint; lastHash: string | null } | undefined> {
  const row = await maybeOne<{ next_block: string; last_hash: string | null }>(sql, `SELECT next_block::text AS next_block, last_hash FROM chain_checkpoints WHERE chain = $1`, [chain]);
  return row ? { nextBlock: BigInt(row.next_block), lastHash: row.last_hash } : undefined;
}

/** The owner's derivation index, allocated on first use. */
export async function depositIndex(sql: Sql, owner: { workspaceId: string; accountId: string }): Promise<number> {
  await sql.query(`INSERT INTO chain_deposit_owners (account_id, workspace_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [owner.accountId, owner.workspaceId]);
  return (await one<{ derivation_index: number }>(sql, `SELECT derivation_index FROM chain_deposit_owners WHERE account_id = $1`, [owner.accountId])).derivation_index;
}

export async function insertDepositAddresses(sql: Sql, rows: readonly { chain: string; address: string; accountId: string; workspaceId: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO chain_deposit_addresses (chain, address, account_id, workspace_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::uuid[]) ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.chain), rows.map((r) => r.address.toLowerCase()), rows.map((r) => r.accountId), rows.map((r) => r.workspaceId)],
  );
}

/** Owners with a derivation index but no address on this chain yet (a chain configured after they got theirs). */
export async function ownersWithoutAddress(sql: Sql, chain: string): Promise<{ account_id: string; workspace_id: string; derivation_index: number }[]> {
  return sql.query(
    `SELECT o.account_id, o.workspace_id, o.derivation_index FROM chain_deposit_owners o
      WHERE NOT EXISTS (SELECT 1 FROM chain_deposit_addresses a WHERE a.chain = $1 AND a.account_id = o.account_id)`,
    [chain],
  );
}

export async function depositAddresses(sql: Sql, chain: string): Promise<{ address: string; account_id: string; workspace_id: string }[]> {
  return sql.query(`SELECT address, account_id, workspace_id FROM chain_deposit_addresses WHERE chain = $1`, [chain]);
}

export async function addressesOfOwner(sql: Sql, accountId: string): Promise<{ chain: string; address: string }[]> {
  return sql.query(`SELECT chain, address FROM chain_deposit_addresses WHERE account_id = $1 ORDER BY chain`, [accountId]);
}

export type ChainDepositStatus = 'credited' | 'held' | 'rejected' | 'reversed';

/** A transfer as the watcher saw it: what it is (the identity) and where it was mined. */
export interface NewChainDeposit {
  chain: string;
  txHash: string;
  /** Its ordinal among the transaction's transfers of the same token, sender, recipient and amount. */
  position: number;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  token: string;
  currency: string | null;
  fromAddress: string;
  toAddress: string;
  amountMinor: bigint;
  /** The amount at the currency's scale (null: a token Corridor does not take). */
  creditMinor: bigint | null;
  accountId: string;
  workspaceId: string;
}

export interface ChainDepositRow {
  id: string;
  chain: string;
  tx_hash: string;
  transfer_position: number;
  log_index: number;
  block_number: string;
  block_hash: string | null;
  token: string;
  currency: string | null;
  from_address: string;
  to_address: string;
  amount_minor: string;
  /** The amount at the currency's scale (null on rows taken before it, or a token Corridor does not take: the amount itself). */
  credit_minor: string | null;
  account_id: string;
  workspace_id: string;
  status: ChainDepositStatus;
  deposit_id: string | null;
  reason: string | null;
  evidence: unknown[] | null;
  decided_by: string | null;
  decided_at: Date | null;
  reversed_at: Date | null;
  created_at: Date;
}

const DEPOSIT_COLUMNS = `id, chain, tx_hash, transfer_position, log_index, block_number::text AS block_number, block_hash, token, currency, from_address, to_address,
            amount_minor::text AS amount_minor, credit_minor::text AS credit_minor, account_id, workspace_id, status, deposit_id, reason, evidence, decided_by, decided_at, reversed_at, created_at`;

const IDENTITY = 'chain = $1 AND tx_hash = $2 AND transfer_position = $3 AND token = $7 AND from_address = $9 AND to_address = $10 AND amount_minor = $11';

/**
 * Takes a transfer once by what it is: answers its row when it is new, or was reversed and is back
 * on the chain (the caller then credits it or holds it), or undefined when it was taken before, whose
 * place (block, log index) is then brought up to date (the same transaction re-mined after a reorg).
 */
export async function claimDeposit(sql: Sql, d: NewChainDeposit, status: 'credited' | 'held', reason: string | null, evidence: unknown[] | null): Promise<ChainDepositRow | undefined> {
  const params = [d.chain, d.txHash, d.position, d.logIndex, d.blockNumber.toString(), d.blockHash, d.token, d.currency, d.fromAddress, d.toAddress, d.amountMinor.toString(),
    d.accountId, d.workspaceId, status, reason, evidence === null ? null : JSON.stringify(evidence), d.creditMinor?.toString() ?? null];
  const back = await sql.query<ChainDepositRow>(
    `UPDATE chain_deposits SET status = $14, reason = $15, evidence = $16::jsonb, deposit_id = NULL, reversed_at = NULL, log_index = $4, block_number = $5, block_hash = $6,
            currency = $8, account_id = $12, workspace_id = $13, credit_minor = $17
      WHERE ${IDENTITY} AND status = 'reversed' RETURNING ${DEPOSIT_COLUMNS}`,
    params,
  );
  if (back[0]) return back[0];
  const rows = await sql.query<ChainDepositRow & { inserted: boolean }>(
    `INSERT INTO chain_deposits (chain, tx_hash, transfer_position, log_index, block_number, block_hash, token, currency, from_address, to_address, amount_minor,
                                 account_id, workspace_id, status, reason, evidence, credit_minor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17)
     ON CONFLICT (chain, tx_hash, token, from_address, to_address, amount_minor, transfer_position)
       DO UPDATE SET log_index = EXCLUDED.log_index, block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash
     RETURNING ${DEPOSIT_COLUMNS}, (xmax = 0) AS inserted`,
    params,
  );
  const row = rows[0];
  if (!row?.inserted) return undefined;
  const { inserted: _, ...taken } = row;
  return taken;
}

/** Where a taken transfer is now (the same transaction re-mined elsewhere after a reorg). */
export async function moveDeposit(sql: Sql, id: string, at: { blockNumber: bigint; blockHash: string; logIndex: number }): Promise<void> {
  await sql.query(`UPDATE chain_deposits SET block_number = $2, block_hash = $3, log_index = $4 WHERE id = $1`, [id, at.blockNumber.toString(), at.blockHash, at.logIndex]);
}

/** A taken transfer, locked. */
export async function lockDeposit(sql: Sql, id: string): Promise<ChainDepositRow | undefined> {
  return maybeOne<ChainDepositRow>(sql, `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits WHERE id = $1 FOR UPDATE`, [id]);
}

/** A transfer taken to credit that the deposit service refused (e.g. the currency is not enabled): held for the operator. */
export async function holdDeposit(sql: Sql, id: string, reason: string): Promise<void> {
  await sql.query(`UPDATE chain_deposits SET status = 'held', reason = $2 WHERE id = $1`, [id, reason]);
}

export async function setCredited(sql: Sql, id: string, depositId: string, decidedBy: string | null): Promise<ChainDepositRow> {
  return one<ChainDepositRow>(
    sql,
    `UPDATE chain_deposits SET status = 'credited', deposit_id = $2, decided_by = COALESCE($3, decided_by), decided_at = CASE WHEN $3::text IS NULL THEN decided_at ELSE now() END
      WHERE id = $1 RETURNING ${DEPOSIT_COLUMNS}`,
    [id, depositId, decidedBy],
  );
}

export async function setRejected(sql: Sql, id: string, by: string): Promise<ChainDepositRow> {
  return one<ChainDepositRow>(sql, `UPDATE chain_deposits SET status = 'rejected', decided_by = $2, decided_at = now() WHERE id = $1 RETURNING ${DEPOSIT_COLUMNS}`, [id, by]);
}

export async function setReversed(sql: Sql, id: string): Promise<void> {
  await sql.query(`UPDATE chain_deposits SET status = 'reversed', reversed_at = now() WHERE id = $1`, [id]);
}

/** The transfers taken from this block on (their blocks may have been reorged away). */
export async function depositsFrom(sql: Sql, chain: string, fromBlock: bigint): Promise<ChainDepositRow[]> {
  return sql.query<ChainDepositRow>(
    `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits WHERE chain = $1 AND block_number >= $2 AND status <> 'reversed' ORDER BY block_number, log_index`,
    [chain, fromBlock.toString()],
  );
}

/** The transfers taken on a chain, oldest first (tests and the operator's view of held transfers). */
export async function chainDeposits(sql: Sql, filter: { chain?: string; status?: ChainDepositStatus } = {}): Promise<ChainDepositRow[]> {
  return sql.query<ChainDepositRow>(
    `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits WHERE ($1::text IS NULL OR chain = $1) AND ($2::text IS NULL OR status = $2) ORDER BY block_number, log_index`,
    [filter.chain ?? null, filter.status ?? null],
  );
}

/** The transfers taken, newest first, paged (the operator's list): by status or all; one chain or all. */
export function listChainDeposits<Item>(sql: Sql, f: PageRequest & { chain?: string | undefined; status?: ChainDepositStatus | undefined }, map: (row: ChainDepositRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.chain) add('chain = ?', f.chain);
  if (f.status) add('status = ?', f.status);
  return paginate(sql, f, { object: 'list', from: `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits`, where, params, idColumn: 'id', map });
}

// Health

export interface ChainStatusRow {
  chain: string;
  up: boolean;
  error: string | null;
  checked_at: Date;
}

/** Records how a worker found a chain's node. */
export async function setChainStatus(sql: Sql, chain: string, up: boolean, error: string | null): Promise<void> {
  await sql.query(
    `INSERT INTO chain_status (chain, up, error, checked_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (chain) DO UPDATE SET up = EXCLUDED.up, error = EXCLUDED.error, checked_at = EXCLUDED.checked_at`,
    [chain, up, error],
  );
}

export async function chainStatuses(sql: Sql): Promise<ChainStatusRow[]> {
  return sql.query<ChainStatusRow>('SELECT chain, up, error, checked_at FROM chain_status ORDER BY chain');
}

/** The ledger amount of a taken transfer (minor units at its currency's scale). */
export const creditOf = (row: Pick<ChainDepositRow, 'credit_minor' | 'amount_minor'>): bigint => BigInt(row.credit_minor ?? row.amount_minor);

// Sweeps of deposit addresses into the hot wallet (chain.sweeps.ts)

export type ChainSweepStatus = 'signed' | 'topped_up' | 'sent' | 'confirmed' | 'failed';

export interface ChainSweepRow {
  id: string;
  chain: string;
  currency: string;
  token: string;
  from_address: string;
  to_address: string;
  amount_units: string;
  method: 'authorization' | 'top_up';
  status: ChainSweepStatus;
  authorization_data: Record<string, string> | null;
  top_up_hash: string | null;
  top_up_raw: string | null;
  tx_hash: string;
  tx_raw: string;
  block_number: string | null;
  error: string | null;
  created_at: Date;
  confirmed_at: Date | null;
}

const SWEEP_COLUMNS = `id, chain, currency, token, from_address, to_address, amount_units::text AS amount_units, method, status, authorization_data,
            top_up_hash, top_up_raw, tx_hash, tx_raw, block_number::text AS block_number, error, created_at, confirmed_at`;

/**
 * What each deposit address holds of a token that may be swept, by the records: its credited
 * transfers less what was swept or is being swept (held, rejected and reversed transfers stay where
 * they are), with the owner's derivation index; only addresses with no open sweep of the token.
 */
export async function sweepCandidates(sql: Sql, chain: string, token: string): Promise<{ address: string; derivation_index: number; sweepable: string }[]> {
  return sql.query(
    `SELECT a.address, o.derivation_index, (d.credited - COALESCE(s.swept, 0))::text AS sweepable
       FROM chain_deposit_addresses a
       JOIN chain_deposit_owners o ON o.account_id = a.account_id
       JOIN (SELECT to_address, sum(amount_minor) AS credited FROM chain_deposits WHERE chain = $1 AND token = $2 AND status = 'credited' GROUP BY to_address) d
         ON d.to_address = a.address
       LEFT JOIN (SELECT from_address, sum(amount_units) AS swept FROM chain_sweeps WHERE chain = $1 AND token = $2 AND status <> 'failed' GROUP BY from_address) s
         ON s.from_address = a.address
      WHERE a.chain = $1
        AND NOT EXISTS (SELECT 1 FROM chain_sweeps x WHERE x.chain = $1 AND x.token = $2 AND x.from_address = a.address AND x.status IN ('signed', 'topped_up', 'sent'))
        AND d.credited - COALESCE(s.swept, 0) > 0`,
    [chain, token],
  );
}

/** Records a sweep with its signed bytes; undefined when one is open for the address and token already (another worker's). */
export async function insertSweep(
  sql: Sql,
  s: { chain: string; currency: string; token: string; from: string; to: string; amountUnits: bigint; method: 'authorization' | 'top_up'; authorization: Record<string, string> | null; topUp: { hash: string; raw: string } | null; tx: { hash: string; raw: string } },
): Promise<ChainSweepRow | undefined> {
  const rows = await sql.query<ChainSweepRow>(
    `INSERT INTO chain_sweeps (chain, currency, token, from_address, to_address, amount_units, method, status, authorization_data, top_up_hash, top_up_raw, tx_hash, tx_raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'signed', $8::jsonb, $9, $10, $11, $12)
     ON CONFLICT (chain, from_address, token) WHERE status IN ('signed', 'topped_up', 'sent') DO NOTHING
     RETURNING ${SWEEP_COLUMNS}`,
    [s.chain, s.currency, s.token, s.from, s.to, s.amountUnits.toString(), s.method, s.authorization ? JSON.stringify(s.authorization) : null, s.topUp?.hash ?? null, s.topUp?.raw ?? null, s.tx.hash, s.tx.raw],
  );
  return rows[0];
}

export async function openSweeps(sql: Sql, chain: string): Promise<ChainSweepRow[]> {
  return sql.query(`SELECT ${SWEEP_COLUMNS} FROM chain_sweeps WHERE chain = $1 AND status IN ('signed', 'topped_up', 'sent') ORDER BY created_at`, [chain]);
}

/** Moves a sweep on (from the status it was read in: a concurrent worker's move wins). */
export async function moveSweep(sql: Sql, id: string, from: ChainSweepStatus, to: ChainSweepStatus, extra: { blockNumber?: bigint; error?: string } = {}): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE chain_sweeps SET status = $3, updated_at = now(), block_number = COALESCE($4, block_number), error = COALESCE($5, error),
            confirmed_at = CASE WHEN $3 = 'confirmed' THEN now() ELSE confirmed_at END
      WHERE id = $1 AND status = $2 RETURNING id`,
    [id, from, to, extra.blockNumber?.toString() ?? null, extra.error ?? null],
  );
  return rows.length > 0;
}

export async function listSweeps(sql: Sql, chain: string | null, limit: number): Promise<ChainSweepRow[]> {
  return sql.query(`SELECT ${SWEEP_COLUMNS} FROM chain_sweeps WHERE ($1::text IS NULL OR chain = $1) ORDER BY created_at DESC LIMIT $2`, [chain, limit]);
}

/**
 * The records' view of what the deposit addresses of a chain hold of a token: every transfer taken
 * and still on the chain (credited, held or rejected) less what confirmed sweeps took away.
 */
export async function depositAddressesExpected(sql: Sql, chain: string, token: string): Promise<bigint> {
  const [row] = await sql.query<{ expected: string }>(
    `SELECT ((SELECT COALESCE(sum(amount_minor), 0) FROM chain_deposits WHERE chain = $1 AND token = $2 AND status <> 'reversed')
           - (SELECT COALESCE(sum(amount_units), 0) FROM chain_sweeps WHERE chain = $1 AND token = $2 AND status = 'confirmed'))::text AS expected`,
    [chain, token],
  );
  return BigInt(row?.expected ?? '0');
}

/** What confirmed sweeps brought the hot wallet of a token (base units). */
export async function sweptInto(sql: Sql, chain: string, token: string): Promise<bigint> {
  const [row] = await sql.query<{ swept: string }>(`SELECT COALESCE(sum(amount_units), 0)::text AS swept FROM chain_sweeps WHERE chain = $1 AND token = $2 AND status = 'confirmed'`, [chain, token]);
  return BigInt(row?.swept ?? '0');
}

/**
 * What is on its way between the hot wallet and the ledger's float of a token: payouts signed and not
 * yet settled (their transfer may be mined already: out of the wallet, not yet out of the float), in
 * ledger minor units, and sweeps recorded and not yet confirmed (into the wallet, not yet into the
 * float), in the token's base units.
 */
export async function floatInFlight(sql: Sql, chain: string, currency: string, token: string): Promise<{ payingOutMinor: bigint; sweepingInUnits: bigint }> {
  const [row] = await sql.query<{ paying: string; sweeping: string }>(
    `SELECT (SELECT COALESCE(sum(amount_minor), 0) FROM chain_payouts WHERE chain = $1 AND currency = $2 AND status IN ('signed', 'sent', 'conflict'))::text AS paying,
            (SELECT COALESCE(sum(amount_units), 0) FROM chain_sweeps WHERE chain = $1 AND token = $3 AND status IN ('signed', 'topped_up', 'sent'))::text AS sweeping`,
    [chain, currency, token],
  );
  return { payingOutMinor: BigInt(row?.paying ?? '0'), sweepingInUnits: BigInt(row?.sweeping ?? '0') };
}
