import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Something that writes its own row into whichever transaction commits first while it is current
 * (the audit entry of a request: src/controls/audit/audit.service.ts). Db.tx calls `beforeCommit`
 * after the transaction's work and before its COMMIT; when it answers true (it wrote), `committed`
 * is called once the COMMIT has returned, so a transaction that rolls back takes its row with it and
 * the participant can write again in a later transaction.
 */
export interface CommitParticipant<Tx = never> {
  beforeCommit(tx: Tx): Promise<boolean>;
  committed(): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each Db passes its own transaction type
const current = new AsyncLocalStorage<CommitParticipant<any>>();

/** Runs `fn` (and everything it starts) with `participant` current. */
export function withCommitParticipant<Tx, T>(participant: CommitParticipant<Tx>, fn: () => T): T {
  return current.run(participant, fn);
}

/** The participant current here, if any. */
export function currentCommitParticipant<Tx>(): CommitParticipant<Tx> | undefined {
  return current.getStore();
}

/**
 * Runs a transaction's work, then lets the current participant write before COMMIT (`commit` runs
 * the COMMIT itself); the participant learns of the commit only once it has happened.
 */
export async function workThenCommit<Tx, T>(tx: Tx, work: (tx: Tx) => Promise<T>, participant: CommitParticipant<Tx> | undefined): Promise<{ result: T; joined: boolean }> {
  const result = await work(tx);
  const joined = participant ? await participant.beforeCommit(tx) : false;
  return { result, joined };
}
