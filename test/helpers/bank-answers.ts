import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { XMLBuilder } from 'fast-xml-parser';

/*
 * The test side of the bank: writes the answers a bank sends back (pain.002, camt.054, camt.053,
 * pacs.004) for given payouts and credits, as the test says. Not part of the product. Built with an
 * XML library in the order the ISO schemas ask for, so every answer validates against the XSD shipped
 * in src/connectors/bank/inbound/xsd/.
 */

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', format: true, suppressEmptyNode: true });

const id = (prefix: string) => `${prefix}${randomBytes(8).toString('hex').toUpperCase()}`;
const NOW = '2026-03-03T18:00:00';

function document(ns: string, body: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ Document: { '@xmlns': `urn:iso:std:iso:20022:tech:xsd:${ns}`, ...body } })}`;
}

/** The EndToEndId the bank echoes: what Corridor sent, a payout id without its dashes (ISO allows 35 characters, a UUID has 36). */
export const endToEndIdOf = (payoutId: string): string => payoutId.replace(/^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i, '$1$2$3$4$5');

const amt = (amount: string, currency: string) => ({ '#text': amount, '@Ccy': currency });

export interface StatusAnswer {
  endToEndId: string;
  /** The bank's status; RCVC, RVMC, RVNM and RVNA carry its Verification of Payee. */
  status: 'RJCT' | 'ACCP' | 'ACSC' | 'RCVC' | 'RVMC' | 'RVNM' | 'RVNA';
  /** The creditor's name the report gives (OrgnlTxRef/Cdtr/Pty/Nm): on a close match, the name the payee's bank holds. */
  creditorName?: string;
  reason?: string;
  info?: string;
  amount?: string;
  currency?: string;
}

/** pain.002.001.11: transaction statuses for payouts of an original pain.001 message. */
export function pain002(o: { originalMessageId: string; transactions: StatusAnswer[]; groupStatus?: string; groupReason?: string; groupInfo?: string; messageId?: string }): string {
  return document('pain.002.001.11', {
    CstmrPmtStsRpt: {
      GrpHdr: { MsgId: o.messageId ?? id('STS'), CreDtTm: NOW },
      OrgnlGrpInfAndSts: {
        OrgnlMsgId: o.originalMessageId,
        OrgnlMsgNmId: 'pain.001.001.09',
        ...(o.groupStatus ? { GrpSts: o.groupStatus } : {}),
        ...(o.groupReason ? { StsRsnInf: { Rsn: { Cd: o.groupReason }, ...(o.groupInfo ? { AddtlInf: o.groupInfo } : {}) } } : {}),
      },
      OrgnlPmtInfAndSts: {
        OrgnlPmtInfId: `${o.originalMessageId}-1`,
        TxInfAndSts: o.transactions.map((t) => ({
          OrgnlEndToEndId: endToEndIdOf(t.endToEndId),
          TxSts: t.status,
          ...(t.reason ? { StsRsnInf: { Rsn: { Cd: t.reason }, ...(t.info ? { AddtlInf: t.info } : {}) } } : {}),
          ...(t.amount || t.creditorName ? { OrgnlTxRef: { ...(t.amount ? { Amt: { InstdAmt: amt(t.amount, t.currency ?? 'EUR') } } : {}), ...(t.creditorName ? { Cdtr: { Pty: { Nm: t.creditorName } } } : {}) } } : {}),
        })),
      },
    },
  });
}

export interface EntryAnswer {
  direction: 'debit' | 'credit';
  amount: string;
  currency?: string;
  /** The bank's reference of the entry (AcctSvcrRef); one is made up when absent, none written when null. */
  ref?: string | null;
  /** The entry's NtryRef, when given. */
  entryRef?: string;
  /** The transaction's own bank reference (TxDtls/Refs/AcctSvcrRef), when given. */
  txRef?: string;
  bookingDate?: string;
  status?: 'BOOK' | 'PDNG';
  endToEndId?: string;
  /** A return: ISO return reason code (and text). */
  returnReason?: string;
  returnInfo?: string;
  creditorIban?: string;
  debtorName?: string;
  reference?: string;
  /** The amount as instructed (AmtDtls/InstdAmt) when the entry books another currency: an FX-funded payout. */
  instructed?: { amount: string; currency: string; rate: string };
}

function entry(e: EntryAnswer) {
  const currency = e.currency ?? 'EUR';
  const cd = e.direction === 'credit' ? 'CRDT' : 'DBIT';
  const family = e.returnReason ? { Cd: 'ICDT', SubFmlyCd: 'RRTN' } : e.direction === 'credit' ? { Cd: 'RCDT', SubFmlyCd: 'ESCT' } : { Cd: 'ICDT', SubFmlyCd: 'ESCT' };
  return {
    ...(e.entryRef ? { NtryRef: e.entryRef } : {}),
    Amt: amt(e.amount, currency),
    CdtDbtInd: cd,
    Sts: { Cd: e.status ?? 'BOOK' },
    BookgDt: { Dt: e.bookingDate ?? '2026-03-03' },
    ValDt: { Dt: e.bookingDate ?? '2026-03-03' },
    ...(e.ref === null ? {} : { AcctSvcrRef: e.ref ?? id('REF') }),
    BkTxCd: { Domn: { Cd: 'PMNT', Fmly: family } },
    NtryDtls: {
      TxDtls: {
        Refs: { ...(e.txRef ? { AcctSvcrRef: e.txRef } : {}), EndToEndId: e.endToEndId ? endToEndIdOf(e.endToEndId) : 'NOTPROVIDED' },
        Amt: amt(e.amount, currency),
        CdtDbtInd: cd,
        ...(e.instructed
          ? { AmtDtls: { InstdAmt: { Amt: amt(e.instructed.amount, e.instructed.currency), CcyXchg: { SrcCcy: currency, TrgtCcy: e.instructed.currency, UnitCcy: currency, XchgRate: e.instructed.rate } } } }
          : {}),
        ...(e.debtorName || e.creditorIban
          ? { RltdPties: { ...(e.debtorName ? { Dbtr: { Pty: { Nm: e.debtorName } } } : {}), ...(e.creditorIban ? { CdtrAcct: { Id: { IBAN: e.creditorIban } } } : {}) } }
          : {}),
        ...(e.reference ? { RmtInf: { Ustrd: e.reference } } : {}),
        ...(e.returnReason ? { RtrInf: { Rsn: { Cd: e.returnReason }, ...(e.returnInfo ? { AddtlInf: e.returnInfo } : {}) } } : {}),
      },
    },
  };
}

export interface AccountAnswer {
  iban: string;
  currency?: string;
}

/** camt.054.001.08: booked debits and credits on an account. */
export function camt054(o: { account: AccountAnswer; entries: EntryAnswer[]; messageId?: string }): string {
  return document('camt.054.001.08', {
    BkToCstmrDbtCdtNtfctn: {
      GrpHdr: { MsgId: o.messageId ?? id('NTF'), CreDtTm: NOW },
      Ntfctn: { Id: id('N'), CreDtTm: NOW, Acct: { Id: { IBAN: o.account.iban }, Ccy: o.account.currency ?? 'EUR' }, Ntry: o.entries.map(entry) },
    },
  });
}

const balance = (type: string, minor: bigint, currency: string, date: string) => ({
  Tp: { CdOrPrtry: { Cd: type } },
  Amt: amt(formatMinor(minor < 0n ? -minor : minor), currency),
  CdtDbtInd: minor < 0n ? 'DBIT' : 'CRDT',
  Dt: { Dt: date },
});

const toMinor = (amount: string) => BigInt(amount.replace('.', '').replace(/^0+(?=\d)/, ''));
const formatMinor = (minor: bigint) => `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;

/** camt.053.001.08: a day's statement (two-decimal currencies), the closing balance the opening plus the entries unless given. */
export function camt053(o: { account: AccountAnswer; date: string; opening: string; entries: EntryAnswer[]; closing?: string; statementId?: string; messageId?: string }): string {
  const currency = o.account.currency ?? 'EUR';
  const net = o.entries.reduce((sum, e) => sum + (e.direction === 'credit' ? toMinor(e.amount) : -toMinor(e.amount)), 0n);
  const closing = o.closing !== undefined ? toMinor(o.closing) : toMinor(o.opening) + net;
  return document('camt.053.001.08', {
    BkToCstmrStmt: {
      GrpHdr: { MsgId: o.messageId ?? id('STM'), CreDtTm: NOW },
      Stmt: {
        Id: o.statementId ?? id('S'),
        CreDtTm: NOW,
        FrToDt: { FrDtTm: `${o.date}T00:00:00`, ToDtTm: `${o.date}T23:59:59` },
        Acct: { Id: { IBAN: o.account.iban }, Ccy: currency },
        Bal: [balance('OPBD', toMinor(o.opening), currency, o.date), balance('CLBD', closing, currency, o.date)],
        Ntry: o.entries.map((e) => entry({ ...e, bookingDate: e.bookingDate ?? o.date })),
      },
    },
  });
}

/** pacs.004.001.10: returns of payouts with their ISO return reason. */
export function pacs004(o: { returns: { endToEndId: string; amount: string; currency?: string; reason: string; info?: string }[]; messageId?: string; settlementDate?: string }): string {
  return document('pacs.004.001.10', {
    PmtRtr: {
      GrpHdr: { MsgId: o.messageId ?? id('RTR'), CreDtTm: NOW, NbOfTxs: String(o.returns.length), SttlmInf: { SttlmMtd: 'CLRG' } },
      TxInf: o.returns.map((r) => ({
        RtrId: id('R'),
        OrgnlEndToEndId: endToEndIdOf(r.endToEndId),
        RtrdIntrBkSttlmAmt: amt(r.amount, r.currency ?? 'EUR'),
        IntrBkSttlmDt: o.settlementDate ?? '2026-03-03',
        RtrRsnInf: { Rsn: { Cd: r.reason }, ...(r.info ? { AddtlInf: r.info } : {}) },
      })),
    },
  });
}

/** Drops an answer into the bank's outbox folder. */
export function writeAnswer(dir: string, name: string, xml: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, xml);
  return file;
}
