import fs from 'node:fs';
import path from 'node:path';
import { abaCheckDigit, isCredit, isDebit, readNacha, writeNacha, type ReadBatch, type ReadEntry } from './nacha.js';

/**
 * The sandbox ACH bank: an ODFI that answers Corridor's NACHA files as its rules say, in the rule
 * shape of moov-io's ach-test-harness (`Responses`: `match` on accountNumber, amount (value or
 * min/max, in cents), routingNumber, traceNumber, individualName, entryType; `action`: a `return`
 * with its code or a `correction` with its code and corrected data, after an optional `delay`).
 * The first matching rule answers an entry; entries no rule matches are settled without an answer.
 * A return carries code 21/31 for a credit returned (money back to the originator) and 26/36 for a
 * debit; a notification of change the same codes with a zero amount.
 * It reads `<dir>/in`, moves each file it answered into `<dir>/in/answered/`, and writes its return
 * and change files to `<dir>/out`; a delayed answer waits in `<dir>/pending/` until its time.
 */

export interface SandboxRule {
  match: {
    accountNumber?: string;
    amount?: { value?: number; min?: number; max?: number };
    routingNumber?: string;
    traceNumber?: string;
    individualName?: string;
    entryType?: 'credit' | 'debit' | 'prenote';
  };
  action: { return?: { code: string }; correction?: { code: string; data: string }; delay?: string };
}

/** "12h", "30m", "10s", "0s" as ms (the harness's Go durations, the common units). */
export function durationMs(text: string | undefined): number {
  if (!text) return 0;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/([0-9.]+)(h|m|s|ms)/g)) total += Number(n) * ({ h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as Record<string, number>)[unit as string]!;
  return total;
}

function matches(rule: SandboxRule, batch: ReadBatch, e: ReadEntry): boolean {
  const m = rule.match;
  const amount = Number(e.amountCents);
  if (m.accountNumber !== undefined && m.accountNumber !== e.accountNumber) return false;
  if (m.routingNumber !== undefined && m.routingNumber !== `${e.rdfiRouting8}${e.checkDigit}`) return false;
  if (m.traceNumber !== undefined && m.traceNumber !== e.traceNumber) return false;
  if (m.individualName !== undefined && m.individualName.toUpperCase() !== e.name.toUpperCase()) return false;
  if (m.amount?.value !== undefined && m.amount.value !== amount) return false;
  if (m.amount?.min !== undefined && amount < m.amount.min) return false;
  if (m.amount?.max !== undefined && amount > m.amount.max) return false;
  if (m.entryType === 'prenote' && !e.prenote) return false;
  if (m.entryType === 'credit' && (!isCredit(e.transactionCode) || e.prenote)) return false;
  if (m.entryType === 'debit' && (!isDebit(e.transactionCode) || e.prenote)) return false;
  void batch;
  return true;
}

export interface SandboxAnswer {
  delayMs: number;
  text: string;
}

const pad = (s: string, n: number) => s.slice(0, n).padEnd(n, ' ');

/**
 * The answers to one file: per delay, a NACHA file of returns (Addenda 99, the entry returned with
 * its amount) and notifications of change (a COR batch, zero-amount entries with Addenda 98), each
 * naming the original entry's trace number. The offset debit of a balanced file is never answered.
 */
export function answerFile(text: string, rules: readonly SandboxRule[], now = new Date()): SandboxAnswer[] {
  const file = readNacha(text);
  const byDelay = new Map<number, { batch: ReadBatch; entry: ReadEntry; rule: SandboxRule }[]>();
  for (const batch of file.batches) {
    for (const entry of batch.entries) {
      const rule = rules.find((r) => (r.action.return || r.action.correction) && matches(r, batch, entry));
      if (!rule) continue;
      const delay = durationMs(rule.action.delay);
      byDelay.set(delay, [...(byDelay.get(delay) ?? []), { batch, entry, rule }]);
    }
  }
  const odfi8 = file.destination.slice(0, 8);
  return [...byDelay.entries()].map(([delayMs, answers]) => {
    let seq = 0;
    const trace = (rdfi8: string) => `${rdfi8}${String(++seq).padStart(7, '0')}`;
    const returns = answers.filter((a) => a.rule.action.return);
    const changes = answers.filter((a) => a.rule.action.correction);
    const batches = [];
    for (const [list, cor] of [
      [returns, false],
      [changes, true],
    ] as const) {
      if (list.length === 0) continue;
      const first = list[0]!.batch;
      batches.push({
        sec: (cor ? 'COR' : first.sec) as 'PPD',
        companyName: first.companyName,
        companyId: first.companyId,
        description: cor ? 'NOTIFICATN' : 'RETURN',
        descriptiveDate: '',
        effectiveDate: first.effectiveDate,
        entries: list.map(({ entry, rule }) => {
          const rdfi8 = entry.rdfiRouting8;
          const own = trace(rdfi8);
          const addenda = cor
            ? `798${pad(rule.action.correction!.code, 3)}${entry.traceNumber}${' '.repeat(6)}${rdfi8}${pad(rule.action.correction!.data, 29)}${' '.repeat(15)}${own}`
            : `799${pad(rule.action.return!.code, 3)}${entry.traceNumber}${' '.repeat(6)}${rdfi8}${' '.repeat(44)}${own}`;
          return {
            // 21/31 return or correct a credit to checking/savings (and move money back as a credit), 26/36 a debit.
            transactionCode: `${entry.transactionCode[0]}${isCredit(entry.transactionCode) ? '1' : '6'}`,
            routingNumber: `${odfi8}${abaCheckDigit(odfi8)}`,
            accountNumber: entry.accountNumber,
            amountCents: cor ? 0n : entry.amountCents,
            identification: entry.identification,
            name: entry.name,
            traceNumber: own,
            rawAddenda: addenda,
          };
        }),
      });
    }
    // A return travels back to the ODFI: the RDFI is the origin, the ODFI the destination.
    const written = writeNacha({
      destination: file.destination,
      destinationName: file.destinationName,
      origin: file.destination,
      originName: 'SANDBOX ACH BANK',
      createdAt: now,
      idModifier: 'A',
      referenceCode: '',
      odfi8,
      batches: batches.map((b) => ({ ...b, entries: b.entries.map(({ rawAddenda, ...e }) => ({ ...e, addendaRecord: rawAddenda })) })),
    });
    return { delayMs, text: written.text };
  });
}

/** The sandbox ACH bank on a folder (the connector's `directory`, or the test SFTP server's folders). */
export class SandboxAchBank {
  constructor(
    private readonly dirs: { inbox: string; outbox: string; pending: string },
    private readonly rules: readonly SandboxRule[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  static onDirectory(dir: string, rules: readonly SandboxRule[]): SandboxAchBank {
    return new SandboxAchBank({ inbox: path.join(dir, 'in'), outbox: path.join(dir, 'out'), pending: path.join(dir, 'pending') }, rules);
  }

  /** Answers every new file in the inbox, then releases the delayed answers whose time came. Returns the names written to the outbox. */
  tick(): string[] {
    const written: string[] = [];
    for (const dir of [this.dirs.outbox, this.dirs.pending, path.join(this.dirs.inbox, 'answered')]) fs.mkdirSync(dir, { recursive: true });
    for (const name of fs.readdirSync(this.dirs.inbox).filter((n) => n.endsWith('.ach')).sort()) {
      const answers = answerFile(fs.readFileSync(path.join(this.dirs.inbox, name), 'latin1'), this.rules, this.now());
      answers.forEach((a, i) => {
        const due = this.now().getTime() + a.delayMs;
        fs.writeFileSync(path.join(this.dirs.pending, `${due}-${i}-${name}`), a.text);
      });
      fs.renameSync(path.join(this.dirs.inbox, name), path.join(this.dirs.inbox, 'answered', name));
    }
    for (const name of fs.readdirSync(this.dirs.pending).sort()) {
      const due = Number(name.split('-')[0]);
      if (due > this.now().getTime()) continue;
      const out = `answer-${name.split('-').slice(1).join('-')}`;
      fs.renameSync(path.join(this.dirs.pending, name), path.join(this.dirs.outbox, out));
      written.push(out);
    }
    return written;
  }
}
