import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The path to distributing by workspace (docs/scaling.md, Citus): every tenant table carries
 * `workspace_id`. A new table fails this test until it has the column or is added below with the
 * reason it is not a tenant table.
 */
const NOT_TENANT_TABLES: Record<string, string> = {
  // The tenant itself: distributed by its id, the colocation root.
  workspaces: 'the tenant (distributed by id)',
  // Platform tables, local to the coordinator.
  schema_migrations: 'migrations applied',
  settings: 'platform settings',
  signing_keys: 'token signing keys of the platform',
  operator_keys: "the operator's keys",
  web_sessions: 'sessions of dashboard and console users (found by cookie digest)',
  jobs: 'the job queue: local to the coordinator, claimed with SKIP LOCKED; a job names its workspace in its payload',
  webhook_leases: "a webhook worker's dispatched batch until its outcomes are written (deliveries of many workspaces): on the coordinator, as jobs",
  // The operator's bank rail (docs/guides/bank-rails.md): files and statements of the operator's own
  // bank accounts, each carrying payouts and deposits of many workspaces; on the coordinator.
  bank_files: "a pain.001 file to the operator's bank (one file, many workspaces' payouts)",
  bank_inbound_files: "a file from the operator's bank (one file, many workspaces)",
  bank_movements: "the book of the operator's bank account (reconciliation)",
  bank_exceptions: "entries of the operator's bank files that matched nothing (no workspace known)",
  bank_statements: "camt.053 statements of the operator's bank accounts",
  bank_statement_lines: "lines of the operator's statements",
  // The operator's hot wallets (docs/guides/crypto-rail.md): one nonce sequence per wallet across
  // every workspace's payouts, so they stay on the coordinator with the wallet.
  chain_nonces: "the operator's hot wallet nonce per chain",
  chain_checkpoints: "the deposit watcher's position per chain",
  chain_status: "whether each chain's node answers, as the workers last found it",
  chain_breakers: "the circuit breaker of the operator's payouts per chain",
  chain_payouts: "payouts signed from the operator's one hot wallet (its nonce sequence spans workspaces)",
  chain_transactions: "the signed transactions of the hot wallet",
  chain_sweeps: "sweeps of deposit addresses into the operator's hot wallet, signed by its gas wallet (one nonce sequence across workspaces)",
  // What providers send and hold for the operator, across workspaces (docs/guides/faster-payments.md,
  // ngn-transfers.md, mobile-money.md): read before it is matched to a workspace's payout, or the operator's own.
  clearbank_batches: "requests of up to 10 payments to the operator's bank, across workspaces",
  clearbank_webhooks: "the bank's webhooks as received, before they are matched to a payout",
  clearbank_statement_requests: "the days whose statement of the operator's ClearBank account was asked for",
  clearbank_statements: "camt.053 statements of the operator's ClearBank account, ready to fetch",
  momo_callbacks: "the provider's callbacks as received (a forged or unknown one matches no payout)",
  paystack_balances: "the operator's balance at Paystack",
  paystack_exceptions: 'what Paystack sent that matched nothing (the operator\'s list)',
  paystack_webhooks: "Paystack's webhooks as received, before they are matched to a payout",
  // Sanctions lists: the same for every workspace, a reference table.
  screening_list_versions: 'sanctions list loads (reference table)',
  alert_conditions: "the operator's alert conditions (platform-wide)",
  alerts: 'alerts to the operator (platform-wide)',
  screening_entries: 'sanctions list entries (reference table)',
  screening_addresses: "sanctions list entries' wallet addresses (reference table)",
  screening_settings: "the operator's screening settings",
  // Owned by a workspace or an operator principal under another name.
  idempotency_keys: '`owner_id` is the workspace id for workspace keys (scope = workspace), an operator principal otherwise',
  audit_chains: "audit chain heads: `chain` is the workspace id, or 'operator'",
  ach_files: "the ACH connector's NACHA files to the operator's ODFI (the operator's, many workspaces' payouts in one file); each payout's workspace is on ach_payouts",
  ach_inbound_files: "the files the operator's ODFI sends back (returns, notifications of change), the operator's; what they moved is on the payouts",
  ach_exceptions: "what an ODFI file said that nothing applied for, the operator's queue; the payout it names carries its workspace",
  ach_settlements: "what each NACHA file debits the operator's settlement account on each effective date (many workspaces' payouts in one file)",
  bank_inbound_entries: "the identities of bank bookings taken in (the operator's bank account, not a workspace's): which deposit a booking became is on the deposit",
  connector_health: "each connector's health (the operator's connectors, shared by every workspace)",
  audit_relinks: "the audit chains' relinked entries (migration 0080): `chain` is the workspace id, or 'operator'",
  // Known gap (docs/scaling.md, "What would change"): a tenant table still without workspace_id.
  ledger_transfers: 'KNOWN GAP: transfers reach their workspace through ledger_accounts; to gain workspace_id before distribution',
};

describe('the schema stays distributable by workspace_id', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('every table outside the commented allow-list has a workspace_id column', async () => {
    const tables = await t.ctx.db.query<{ table_name: string; has_workspace: boolean }>(
      `SELECT tb.table_name, EXISTS (SELECT 1 FROM information_schema.columns c
                                     WHERE c.table_schema = tb.table_schema AND c.table_name = tb.table_name AND c.column_name = 'workspace_id') AS has_workspace
         FROM information_schema.tables tb
        WHERE tb.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
        ORDER BY 1`,
    );
    expect(tables.length).toBeGreaterThan(20);
    const lacking = tables.filter((r) => !r.has_workspace && !(r.table_name in NOT_TENANT_TABLES)).map((r) => r.table_name);
    expect(lacking, 'tenant tables without workspace_id (add the column, or allow-list the table with its reason)').toEqual([]);
    // The allow-list names tables that exist and still lack the column: a stale entry is removed.
    const names = new Map(tables.map((r) => [r.table_name, r.has_workspace]));
    for (const table of Object.keys(NOT_TENANT_TABLES)) {
      expect(names.has(table), `${table} is allow-listed but does not exist`).toBe(true);
      expect(names.get(table), `${table} now has workspace_id: drop it from the allow-list`).toBe(false);
    }
  });
});
