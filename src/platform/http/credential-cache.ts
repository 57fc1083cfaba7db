import type { Db, Listening } from '../db/db.js';
import { isUuid } from '../lib/ids.js';
import { ownsSubAccount } from '../../domains/accounts/accounts.service.js';
import { parseWorkspaceTerms, type WorkspaceTerms } from '../../domains/accounts/workspace-terms.js';
import { readCredentialGrant, type CredentialGrantRow } from '../../domains/auth/credentials.service.js';

/**
 * The channel on which every change to what authentication reads (a credential's scopes or status,
 * a workspace's status, settings, currencies or capabilities, a sub-account's owner) is announced,
 * by triggers (migration 0008), in the changing transaction; the payload is the workspace id.
 */
export const AUTH_CHANGES_CHANNEL = 'corridor_auth_changes';

/** A credential as authentication uses it, with its workspace and the workspace's settings parsed into terms. */
export type CredentialGrant = Omit<CredentialGrantRow, 'settings'> & { terms: WorkspaceTerms };

/**
 * Credentials (with their workspaces) and owned sub-accounts as last read, so a request needs no
 * query of its own for them. It is used only while this process LISTENs for changes: a
 * notification drops the workspace's entries at the changing transaction's commit, in every
 * process, and before a remembered entry is used the listening connection confirms every earlier
 * notification has arrived (one trivial round trip shared by the requests waiting at that moment).
 * While the listening connection is lost, everything is forgotten and every request reads. Only
 * what exists is remembered (an unknown credential or sub-account is read again each time).
 */
export class CredentialCache {
  private readonly grants = new Map<string, CredentialGrant>();
  /** `workspaceId:accountId` of sub-accounts known to belong to that workspace. */
  private readonly subAccounts = new Set<string>();
  private listening = false;
  /** Counts forgets: a read that saw one happen while it ran is not remembered (it may be stale). */
  private generation = 0;
  private listener: Listening | undefined;
  /** Told of each workspace whose entries were dropped for a change (undefined: any workspace, the listening connection came or went). */
  private readonly changeListeners = new Set<(workspaceId: string | undefined) => void>();

  constructor(
    private readonly db: Db,
    private readonly entriesMax: number,
  ) {}

  async start(): Promise<void> {
    this.listener = await this.db.listen(AUTH_CHANGES_CHANNEL, {
      onMessage: (workspaceId) => this.forgetWorkspace(workspaceId),
      onListening: (listening) => {
        this.forgetAll();
        this.listening = listening;
        this.announce(undefined);
      },
    });
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.forgetAll();
    await this.listener?.stop();
  }

  /** Calls `listener` after every change announced for a workspace (undefined: changes may have been missed). Returns the unsubscribe function. */
  onChange(listener: (workspaceId: string | undefined) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private announce(workspaceId: string | undefined): void {
    for (const listener of this.changeListeners) listener(workspaceId);
  }

  /**
   * The credential `clientId` of `workspaceId` (undefined when there is none), and whether the
   * workspace owns the sub-account `subAccountId` (false when none is named).
   */
  async read(clientId: string, workspaceId: string, subAccountId: string | undefined): Promise<{ grant: CredentialGrant | undefined; ownsSubAccount: boolean }> {
    const subId = subAccountId !== undefined && isUuid(subAccountId) ? subAccountId : undefined;
    const key = `${clientId}:${workspaceId}`;
    const subKey = `${workspaceId}:${subId}`;
    const generation = this.generation;
    let cached = this.listening ? this.grants.get(key) : undefined;
    if (cached) {
      // What was remembered is trusted only once every change committed before this request is
      // heard (in another process, the request may arrive before the notification).
      const heard = await this.listener?.heardAll().then(
        () => true,
        () => false,
      );
      cached = heard ? this.grants.get(key) : undefined;
    }
    if (cached) {
      if (subId === undefined) return { grant: cached, ownsSubAccount: false };
      if (this.subAccounts.has(subKey)) return { grant: cached, ownsSubAccount: true };
      const owned = await ownsSubAccount(this.db, workspaceId, subId);
      if (owned) this.remember(generation, () => this.subAccounts.add(subKey));
      return { grant: cached, ownsSubAccount: owned };
    }
    const row = await readCredentialGrant(this.db, clientId, workspaceId, subId ?? null);
    if (!row) return { grant: undefined, ownsSubAccount: false };
    const { sub_account_id: owned, settings, ...rest } = row;
    const grant: CredentialGrant = { ...rest, terms: parseWorkspaceTerms(settings) };
    this.remember(generation, () => {
      this.grants.set(key, grant);
      if (owned) this.subAccounts.add(subKey);
    });
    return { grant, ownsSubAccount: owned !== null };
  }

  private remember(generation: number, store: () => void): void {
    if (!this.listening || generation !== this.generation) return;
    if (this.grants.size + this.subAccounts.size >= this.entriesMax) this.forgetAll();
    store();
  }

  private forgetWorkspace(workspaceId: string): void {
    this.generation++;
    for (const [key, grant] of this.grants) if (grant.workspace_id === workspaceId) this.grants.delete(key);
    for (const key of this.subAccounts) if (key.startsWith(`${workspaceId}:`)) this.subAccounts.delete(key);
    this.announce(workspaceId);
  }

  private forgetAll(): void {
    this.generation++;
    this.grants.clear();
    this.subAccounts.clear();
  }
}
