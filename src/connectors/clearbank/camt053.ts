/*
 * The sandbox ClearBank's statements as camt.053.001.08 (pure: the account's bookings in, the XML
 * out), what its Customer Statements API serves at `GET /v1/statements/{messageId}`. Corridor reads
 * them with the bank connector's ISO 20022 reader (src/connectors/bank/inbound/iso20022.parse.ts);
 * they validate against the camt.053.001.08 schema beside it.
 */

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
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pounds = (minor: bigint) => {
  const n = minor < 0n ? -minor : minor;
  return `${n / 100n}.${(n % 100n).toString().padStart(2, '0')}`;
};
const time = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
const day = (d: Date) => d.toISOString().slice(0, 10);

function balance(type: string, minor: bigint, date: string): string {
  return `<Bal><Tp><CdOrPrtry><Cd>${type}</Cd></CdOrPrtry></Tp><Amt Ccy="GBP">${pounds(minor)}</Amt><CdtDbtInd>${minor < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
}

function party(tag: 'Dbtr' | 'Cdtr', c: Booking['counterparty']): string {
  return `<${tag}><Pty><Nm>${escape(c.name.slice(0, 140))}</Nm></Pty></${tag}><${tag}Acct><Id><Othr><Id>${c.sortCode}${c.accountNumber}</Id><SchmeNm><Cd>BBAN</Cd></SchmeNm></Othr></Id></${tag}Acct>`;
}

function entry(b: Booking): string {
  const amount = `<Amt Ccy="GBP">${pounds(b.amountMinor)}</Amt><CdtDbtInd>${b.direction === 'debit' ? 'DBIT' : 'CRDT'}</CdtDbtInd>`;
  // The other side: the payee of a payment sent (and of a payment returned, who sends it back), the payer of a credit received.
  const parties = b.family === 'RCDT' || b.subFamily === 'RRTN' ? party('Dbtr', b.counterparty) : party('Cdtr', b.counterparty);
  const rtrInf = b.returnReason ? `<RtrInf><Rsn><Cd>${escape(b.returnReason.code)}</Cd></Rsn><AddtlInf>${escape(b.returnReason.words.slice(0, 105))}</AddtlInf></RtrInf>` : '';
  return (
    `<Ntry><NtryRef>${escape(bankRef(b.transactionId))}</NtryRef>${amount}<Sts><Cd>BOOK</Cd></Sts>` +
    `<BookgDt><DtTm>${time(b.at)}</DtTm></BookgDt><ValDt><Dt>${day(b.at)}</Dt></ValDt><AcctSvcrRef>${escape(bankRef(b.transactionId))}</AcctSvcrRef>` +
    `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${b.family}</Cd><SubFmlyCd>${b.subFamily}</SubFmlyCd></Fmly></Domn></BkTxCd>` +
    `<NtryDtls><TxDtls><Refs><AcctSvcrRef>${escape(bankRef(b.transactionId))}</AcctSvcrRef><EndToEndId>${escape(b.endToEndId.slice(0, 35))}</EndToEndId></Refs>${amount}` +
    `<RltdPties>${parties}</RltdPties><RmtInf><Ustrd>${escape(b.reference.slice(0, 140))}</Ustrd></RmtInf>${rtrInf}</TxDtls></NtryDtls></Ntry>`
  );
}

/** The statement of a period as camt.053.001.08: opening and closing booked balances, one entry per booking in the period, oldest first. */
export function camt053(s: StatementOfPeriod): string {
  const inPeriod = s.bookings.filter((b) => b.at >= s.start && b.at < s.end).sort((a, b) => a.at.getTime() - b.at.getTime());
  const closing = inPeriod.reduce((sum, b) => sum + (b.direction === 'credit' ? b.amountMinor : -b.amountMinor), s.openingMinor);
  const lastDay = day(new Date(s.end.getTime() - 1));
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
    `<GrpHdr><MsgId>${s.messageId}</MsgId><CreDtTm>${time(s.createdAt)}</CreDtTm><MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn></GrpHdr>` +
    `<Stmt><Id>${s.messageId}</Id><ElctrncSeqNb>${s.sequence}</ElctrncSeqNb><CreDtTm>${time(s.createdAt)}</CreDtTm><FrToDt><FrDtTm>${time(s.start)}</FrDtTm><ToDtTm>${time(s.end)}</ToDtTm></FrToDt>` +
    `<Acct><Id><IBAN>${s.iban}</IBAN></Id><Ccy>GBP</Ccy></Acct>` +
    balance('OPBD', s.openingMinor, day(s.start)) +
    balance('CLBD', closing, lastDay) +
    inPeriod.map(entry).join('') +
    '</Stmt></BkToCstmrStmt></Document>\n'
  );
}
