import type { Sql, Tx } from '../../db/db.js';
import { fieldError, notFound } from '../../http/errors.js';
import { storableText } from '../../http/input-rules.js';
import { paginate, type PageRequest } from '../../http/pagination.js';
import { currencyInfo } from '../../lib/currencies.js';
import { newId } from '../../lib/ids.js';
import { hashSecret, verifySecret, type SecretDigestKey } from '../../lib/secrets.js';
import * as repo from '../accounts/accounts.repository.js';
import { assertValidDepositSettings } from '../accounts/deposit-settings.js';
import { assertValidPayoutSettings } from '../accounts/payout-settings.js';
import type { WorkspaceRow } from '../accounts/accounts.repository.js';
import { CAPABILITIES, type Capability } from '../auth/scopes.js';

export function workspaceData(row: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    country: row.country,
    status: row.status,
    enabledCurrencies: [...row.enabled_currencies].sort(),
    capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, !row.disabled_capabilities.includes(c)])),
    settings: row.settings,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function listWorkspaces(sql: Sql, page: PageRequest) {
  return paginate(sql, page, {
    object: 'workspace.list',
    from: `SELECT ${repo.workspaceColumns} FROM workspaces`,
    where: [],
    params: [],
    map: (row: WorkspaceRow) => workspaceData(row),
  });
}

async function locked(tx: Tx, id: string): Promise<WorkspaceRow> {
  const row = await repo.lockWorkspace(tx, id);
  if (!row) throw notFound('Workspace');
  return row;
}

/** Enables or disables a currency; sandbox-only currencies are refused in production. */
export async function setCurrency(tx: Tx, id: string, code: string, enabled: boolean, env: 'sandbox' | 'production'): Promise<WorkspaceRow> {
  const info = currencyInfo(code);
  if (!info) throw fieldError('code', `code ${code} is not a supported currency`, 'UNSUPPORTED_CURRENCY');
  if (enabled && info.availability === 'sandbox_only' && env === 'production') {
    throw fieldError('code', `code ${code} exists only in the sandbox`, 'CURRENCY_SANDBOX_ONLY');
  }
  const row = await locked(tx, id);
  const set = new Set(row.enabled_currencies);
  if (enabled) set.add(code);
  else set.delete(code);
  return (await repo.updateWorkspace(tx, id, { currencies: [...set] })) as WorkspaceRow;
}

export async function setCapability(tx: Tx, id: string, name: Capability, enabled: boolean): Promise<WorkspaceRow> {
  const row = await locked(tx, id);
  const disabled = new Set(row.disabled_capabilities);
  if (enabled) disabled.delete(name);
  else disabled.add(name);
  return (await repo.updateWorkspace(tx, id, { disabledCapabilities: [...disabled] })) as WorkspaceRow;
}

export async function updateSettings(tx: Tx, id: string, settings: Record<string, unknown>): Promise<WorkspaceRow> {
  assertValidPayoutSettings(settings);
  assertValidDepositSettings(settings);
  await locked(tx, id);
  return (await repo.updateWorkspace(tx, id, { settings })) as WorkspaceRow;
}

/** Adds an operator key, stored only as a keyed digest (src/lib/secrets.ts). */
export async function createOperatorKey(sql: Sql, digestKey: SecretDigestKey, key: string, label: string): Promise<string> {
  const id = newId();
  await sql.query('INSERT INTO operator_keys (id, key_hash, label) VALUES ($1, $2, $3)', [id, hashSecret(key, digestKey), label]);
  return id;
}

/** Replaces an operator key's hash from an earlier release (scrypt) with its digest; the key must be the right one. */
export async function rehashOperatorKey(sql: Sql, digestKey: SecretDigestKey, id: string, key: string): Promise<void> {
  await sql.query("UPDATE operator_keys SET key_hash = $2 WHERE id = $1 AND key_hash NOT LIKE 'hmac-sha256$%'", [id, hashSecret(key, digestKey)]);
}

/**
 * The active operator key a presented key is, or undefined. One digest and one lookup: a wrong key
 * costs microseconds. Keys still stored as scrypt (earlier releases, other than the bootstrap key,
 * which is rehashed at start) are tried after that and rehashed when one matches.
 */
export async function findOperatorKey(sql: Sql, digestKey: SecretDigestKey, presented: string, legacyKeysMax: number): Promise<string | undefined> {
  const digest = hashSecret(presented, digestKey);
  const [current] = await sql.query<{ id: string }>('SELECT id FROM operator_keys WHERE key_hash = $1 AND revoked_at IS NULL', [digest]);
  if (current) return current.id;
  const legacy = await sql.query<{ id: string; key_hash: string }>(
    "SELECT id, key_hash FROM operator_keys WHERE revoked_at IS NULL AND key_hash LIKE 'scrypt$%' ORDER BY created_at LIMIT $1",
    [legacyKeysMax],
  );
  for (const row of legacy) {
    if (await verifySecret(presented, row.key_hash, digestKey)) {
      await rehashOperatorKey(sql, digestKey, row.id, presented);
      return row.id;
    }
  }
  return undefined;
}

const REDACTED_FIELDS = /secret|password|key|token|csrf|confirmation|sealed|^code$/i;

/** The body as audited: secrets redacted, and text a refused call carried made storable (src/http/input-rules.ts). */
function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [storableText(k), REDACTED_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

/** One operator call as the audit log keeps it. */
export interface AuditEntry {
  operatorKeyId: string | null;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  workspaceId: string | undefined;
  body: unknown;
  /** Who acted beside an operator key: `console` (signed in with the key), `user:<id>` (a dashboard user). */
  actor?: string | undefined;
}

/** Every operator call is written to the audit log (request body with secrets redacted). */
export async function writeAudit(sql: Sql, entry: AuditEntry): Promise<void> {
  const { workspaceId } = entry;
  await sql.query(
    `INSERT INTO operator_audit_log (id, operator_key, method, path, status_code, request_id, workspace_id, body, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      newId(),
      entry.operatorKeyId,
      entry.method,
      entry.path.slice(0, 2000),
      entry.statusCode,
      entry.requestId,
      workspaceId && /^[0-9a-f-]{36}$/i.test(workspaceId) ? workspaceId : null,
      entry.body === undefined ? null : JSON.stringify(redact(entry.body)),
      entry.actor ?? null,
    ],
  );
}

/** Retention: deletes at most `limit` audit entries written before `before` (only when RETENTION_AUDIT_LOG_DAYS is set). */
export async function deleteAuditBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM operator_audit_log WHERE id = ANY(ARRAY(
       SELECT id FROM operator_audit_log WHERE at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

export function listAudit(sql: Sql, page: PageRequest, workspaceId?: string) {
  return paginate(sql, page, {
    object: 'audit_entry.list',
    from: 'SELECT id, at, operator_key, method, path, status_code, request_id, workspace_id, body, actor FROM operator_audit_log',
    where: workspaceId ? ['workspace_id = $1'] : [],
    params: workspaceId ? [workspaceId] : [],
    createdColumn: 'at',
    map: (row: { id: string; at: Date; operator_key: string | null; method: string; path: string; status_code: number; request_id: string; workspace_id: string | null; body: unknown; actor: string | null }) => ({
      id: row.id,
      at: row.at.toISOString(),
      operatorKeyId: row.operator_key,
      method: row.method,
      path: row.path,
      statusCode: row.status_code,
      requestId: row.request_id,
      workspaceId: row.workspace_id,
      body: row.body,
      actor: row.actor,
    }),
  });
}
