/*
 * The sandbox ClearBank's statements as camt.053.001.08 (pure: the account's bookings in, the XML
 * out), what its Customer Statements API serves at `GET /v1/statements/{messageId}`. Corridor reads
 * them with the bank connector's ISO 20022 reader (src/connectors/bank/inbound/iso20022.parse.ts);
 * they validate against the camt.053.001.08 schema beside it.
 */

import { create } from 'xmlbuilder2';
import { formatIsoAmount } from '../../platform/lib/money.js';

/** One booking on the sandbox account: a payment settled, a return, an inbound credit. */
export interface Booking {
  at: Date;
  direction: 'debit' | 'credit';
  /** In pence. */
  amountMinor: bigint;
  transactionId: string;
  endToEndId: string;
  /** The other side: its name and sort code and account number. */
  counterparty: { name: string; sortCode: string; accountNumber: string };
  reference: string;
  /** `PMNT/ICDT/DMCT` a payment sent, `PMNT/RCDT/DMCT` a credit received, `PMNT/ICDT/RRTN` a payment returned. */
  family: 'ICDT' | 'RCDT';
  subFamily: 'DMCT' | 'RRTN';
  returnReason?: { code: string; words: string } | undefined;
}

export interface StatementOfPeriod {
  messageId: string;
  createdAt: Date;
  iban: string;
  start: Date;
  end: Date;
  sequence: number;
  /** In pence, signed. */
  openingMinor: bigint;
  bookings: readonly Booking[];
}

/** A bank reference as camt writes it (Max35Text): ClearBank's TransactionId, a GUID, without its hyphens. */
export const bankRef = (transactionId: string) => transactionId.replace(/-/g, '').slice(0, 35);
const amount = (minor: bigint) => ({ '@Ccy': 'GBP', '#': formatIsoAmount(minor < 0n ? -minor : minor, 'GBP') });
const time = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
const day = (d: Date) => d.toISOString().slice(0, 10);

const balance = (type: string, minor: bigint, date: string) => ({
  Tp: { CdOrPrtry: { Cd: type } },
  Amt: amount(minor),
  CdtDbtInd: minor < 0n ? 'DBIT' : 'CRDT',
  Dt: { Dt: date },
});

const party = (tag: 'Dbtr' | 'Cdtr', c: Booking['counterparty']) => ({
  [tag]: { Pty: { Nm: c.name.slice(0, 140) } },
  [`${tag}Acct`]: { Id: { Othr: { Id: `${c.sortCode}${c.accountNumber}`, SchmeNm: { Cd: 'BBAN' } } } },
});

function entry(b: Booking) {
  const money = { Amt: amount(b.amountMinor), CdtDbtInd: b.direction === 'debit' ? 'DBIT' : 'CRDT' };
  const ref = bankRef(b.transactionId);
  // The other side: the payee of a payment sent (and of a payment returned, who sends it back), the payer of a credit received.
  const parties = b.family === 'RCDT' || b.subFamily === 'RRTN' ? party('Dbtr', b.counterparty) : party('Cdtr', b.counterparty);
  return {
    NtryRef: ref,
    ...money,
    Sts: { Cd: 'BOOK' },
    BookgDt: { DtTm: time(b.at) },
    ValDt: { Dt: day(b.at) },
    AcctSvcrRef: ref,
    BkTxCd: { Domn: { Cd: 'PMNT', Fmly: { Cd: b.family, SubFmlyCd: b.subFamily } } },
    NtryDtls: {
      TxDtls: {
        Refs: { AcctSvcrRef: ref, EndToEndId: b.endToEndId.slice(0, 35) },
        ...money,
        RltdPties: parties,
        RmtInf: { Ustrd: b.reference.slice(0, 140) },
        ...(b.returnReason ? { RtrInf: { Rsn: { Cd: b.returnReason.code }, AddtlInf: b.returnReason.words.slice(0, 105) } } : {}),
      },
    },
  };
}

/** The statement of a period as camt.053.001.08: opening and closing booked balances, one entry per booking in the period, oldest first. */
export function camt053(s: StatementOfPeriod): string {
  const inPeriod = s.bookings.filter((b) => b.at >= s.start && b.at < s.end).sort((a, b) => a.at.getTime() - b.at.getTime());
  const closing = inPeriod.reduce((sum, b) => sum + (b.direction === 'credit' ? b.amountMinor : -b.amountMinor), s.openingMinor);
  const lastDay = day(new Date(s.end.getTime() - 1));
  const statement = {
    Document: {
      '@xmlns': 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08',
      BkToCstmrStmt: {
        GrpHdr: { MsgId: s.messageId, CreDtTm: time(s.createdAt), MsgPgntn: { PgNb: 1, LastPgInd: true } },
        Stmt: {
          Id: s.messageId,
          ElctrncSeqNb: s.sequence,
          CreDtTm: time(s.createdAt),
          FrToDt: { FrDtTm: time(s.start), ToDtTm: time(s.end) },
          Acct: { Id: { IBAN: s.iban }, Ccy: 'GBP' },
          Bal: [balance('OPBD', s.openingMinor, day(s.start)), balance('CLBD', closing, lastDay)],
          ...(inPeriod.length > 0 ? { Ntry: inPeriod.map(entry) } : {}),
        },
      },
    },
  };
  return `${create({ version: '1.0', encoding: 'UTF-8' }, statement).end()}\n`;
}
