import type { Sql } from '../platform/db/db.js';
import { verifyAuditChain } from '../controls/audit/audit.service.js';

/**
 * `corridor audit verify [--workspace ID | --operator]`: checks one audit chain against the
 * database, as GET /operator/v1/audit-log/verify does. Prints the verification as JSON and a line
 * saying where the chain breaks; answers whether it is intact (the exit status is 1 when not).
 */
export async function auditVerify(sql: Sql, target: { workspaceId?: string | undefined }): Promise<{ ok: boolean; output: string }> {
  const result = await verifyAuditChain(sql, target.workspaceId);
  const broken = result.firstBroken;
  const summary = broken
    ? `audit chain ${result.chain}: BROKEN at seq ${broken.seq} (${broken.reason}): ${broken.detail}`
    : `audit chain ${result.chain}: intact, entries ${result.firstSeq} to ${result.head.seq} (${result.checked} checked), head ${result.head.hash}`;
  return { ok: result.valid, output: `${JSON.stringify(result, null, 2)}\n${summary}\n` };
}
