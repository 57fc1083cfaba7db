import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';

/**
 * ISO 20022 customer credit transfer initiation (pain.001) files, built with xmlbuilder2 (no string
 * concatenation: every value is escaped by the builder). Pure: the same input gives the same bytes.
 *
 * - SEPA (`sepa_credit`, `sepa_inst`): pain.001.001.09 per the EPC customer-to-PSP implementation
 *   guidelines (EPC132-08): service level SEPA, charges SLEV, IBANs, local instrument INST for instant
 *   payments, structured postal addresses where the beneficiary has them.
 * - SWIFT (`swift`): CBPR+ usage, with a UETR on every transaction, the creditor agent's BIC, charges
 *   SHAR and a structured postal address (street, post code, town, country), written as
 *   pain.001.001.10 (see xsd/SOURCE.md for why).
 */

export type Scheme = 'sepa' | 'swift';

export interface SchemeMessage {
  /** The message identifier, as the namespace and the bank name it. */
  message: string;
  namespace: string;
  /** The schema file (in ./xsd) every file of this scheme is validated against. */
  xsd: string;
}

export const MESSAGES: Readonly<Record<Scheme, SchemeMessage>> = {
  sepa: { message: 'pain.001.001.09', namespace: 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09', xsd: 'pain.001.001.09.EPC132-08_2023_SCT_C2PSP.xsd' },
  swift: { message: 'pain.001.001.10', namespace: 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.10', xsd: 'pain.001.001.10_1.xsd' },
};

/** The scheme of a route the bank connector serves. */
export function schemeOfRoute(route: string): Scheme | undefined {
  if (route === 'sepa_credit' || route === 'sepa_inst') return 'sepa';
  if (route === 'swift') return 'swift';
  return undefined;
}

export interface PostalAddress {
  street?: string | undefined;
  buildingNumber?: string | undefined;
  postcode?: string | undefined;
  town?: string | undefined;
  subdivision?: string | undefined;
  country: string;
}

/** One credit transfer: a payout as it leaves. */
export interface CreditTransfer {
  /** The payout's EndToEndId (end-to-end.ts). */
  endToEndId: string;
  /** SWIFT only: the UETR (UUIDv4). */
  uetr?: string | undefined;
  /** Decimal at the currency's scale. */
  amount: string;
  currency: string;
  creditor: { name: string; address?: PostalAddress | undefined };
  account: { iban: string } | { other: string };
  /** The creditor agent's BIC (required for SWIFT; optional with an IBAN on SEPA). */
  agentBic?: string | undefined;
  /** Unstructured remittance information (the payout's reference). */
  remittance?: string | undefined;
  /** On whose behalf the debtor pays (the payout's sender), when known. */
  ultimateDebtor?: string | undefined;
}

/** A payment information block: the transfers of one rail (instant or not) from the debtor account. */
export interface PaymentBatch {
  id: string;
  instant: boolean;
  transfers: CreditTransfer[];
}

export interface PaymentFile {
  scheme: Scheme;
  msgId: string;
  createdAt: Date;
  /** YYYY-MM-DD. */
  executionDate: string;
  debtor: { name: string; iban: string; bic: string; currency: string; address?: PostalAddress | undefined };
  /** BtchBookg: one debit for each block (true) or one per transfer (false, when not given). */
  batchBooking?: boolean | undefined;
  batches: PaymentBatch[];
}

export interface BuiltFile {
  xml: string;
  message: string;
  nbOfTxs: number;
  /** The control sum: every transfer's amount added, as a decimal. */
  ctrlSum: string;
}

/** Decimal strings added exactly (amounts of several currencies and scales may share a file). */
export function decimalSum(amounts: readonly string[]): string {
  const scale = Math.max(0, ...amounts.map((a) => (a.split('.')[1] ?? '').length));
  const total = amounts.reduce((sum, a) => {
    const [units = '0', decimals = ''] = a.split('.');
    return sum + BigInt(units + decimals.padEnd(scale, '0'));
  }, 0n);
  if (scale === 0) return total.toString();
  const digits = total.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** CreDtTm: ISO date-time with its offset (CBPR+ asks for one), to the second. */
const isoDateTime = (d: Date): string => `${d.toISOString().slice(0, 19)}+00:00`;

function postalAddress(parent: XMLBuilder, a: PostalAddress): void {
  const adr = parent.ele('PstlAdr');
  if (a.street) adr.ele('StrtNm').txt(a.street);
  if (a.buildingNumber) adr.ele('BldgNb').txt(a.buildingNumber);
  if (a.postcode) adr.ele('PstCd').txt(a.postcode);
  if (a.town) adr.ele('TwnNm').txt(a.town);
  if (a.subdivision) adr.ele('CtrySubDvsn').txt(a.subdivision);
  adr.ele('Ctry').txt(a.country);
}

function transaction(parent: XMLBuilder, scheme: Scheme, t: CreditTransfer): void {
  const tx = parent.ele('CdtTrfTxInf');
  const pmtId = tx.ele('PmtId');
  pmtId.ele('EndToEndId').txt(t.endToEndId);
  if (scheme === 'swift' && t.uetr) pmtId.ele('UETR').txt(t.uetr);
  tx.ele('Amt').ele('InstdAmt', { Ccy: t.currency }).txt(t.amount);
  if (scheme === 'swift') tx.ele('ChrgBr').txt('SHAR');
  if (t.ultimateDebtor) tx.ele('UltmtDbtr').ele('Nm').txt(t.ultimateDebtor);
  if (t.agentBic) tx.ele('CdtrAgt').ele('FinInstnId').ele('BICFI').txt(t.agentBic);
  const cdtr = tx.ele('Cdtr');
  cdtr.ele('Nm').txt(t.creditor.name);
  if (t.creditor.address) postalAddress(cdtr, t.creditor.address);
  const id = tx.ele('CdtrAcct').ele('Id');
  if ('iban' in t.account) id.ele('IBAN').txt(t.account.iban);
  else id.ele('Othr').ele('Id').txt(t.account.other);
  if (t.remittance) tx.ele('RmtInf').ele('Ustrd').txt(t.remittance);
}

function paymentInformation(parent: XMLBuilder, file: PaymentFile, batch: PaymentBatch): void {
  const amounts = batch.transfers.map((t) => t.amount);
  const pmt = parent.ele('PmtInf');
  pmt.ele('PmtInfId').txt(batch.id);
  pmt.ele('PmtMtd').txt('TRF');
  pmt.ele('BtchBookg').txt(String(file.batchBooking ?? false));
  pmt.ele('NbOfTxs').txt(String(batch.transfers.length));
  pmt.ele('CtrlSum').txt(decimalSum(amounts));
  if (file.scheme === 'sepa') {
    const tp = pmt.ele('PmtTpInf');
    tp.ele('SvcLvl').ele('Cd').txt('SEPA');
    if (batch.instant) tp.ele('LclInstrm').ele('Cd').txt('INST');
  }
  pmt.ele('ReqdExctnDt').ele('Dt').txt(file.executionDate);
  const dbtr = pmt.ele('Dbtr');
  dbtr.ele('Nm').txt(file.debtor.name);
  if (file.debtor.address) postalAddress(dbtr, file.debtor.address);
  const acct = pmt.ele('DbtrAcct');
  acct.ele('Id').ele('IBAN').txt(file.debtor.iban);
  acct.ele('Ccy').txt(file.debtor.currency);
  pmt.ele('DbtrAgt').ele('FinInstnId').ele('BICFI').txt(file.debtor.bic);
  if (file.scheme === 'sepa') pmt.ele('ChrgBr').txt('SLEV');
  for (const t of batch.transfers) transaction(pmt, file.scheme, t);
}

/**
 * The EndToEndId of the transfer written on each line of a file built here (pretty-printed, one
 * element a line), so that a validator's message can be laid at the door of the one payout it concerns.
 */
export function transferAtLine(xml: string): (line: number) => string | undefined {
  const at = new Map<number, string>();
  let open: number | undefined;
  xml.split('\n').forEach((text, i) => {
    if (text.includes('<CdtTrfTxInf>')) open = i + 1;
    const id = /<EndToEndId>([^<]*)<\/EndToEndId>/.exec(text)?.[1];
    if (open !== undefined && id !== undefined) at.set(open, id);
    if (text.includes('</CdtTrfTxInf>') && open !== undefined) {
      const e2e = at.get(open);
      if (e2e !== undefined) for (let l = open; l <= i + 1; l++) at.set(l, e2e);
      open = undefined;
    }
  });
  return (line) => at.get(line);
}

/** The file's XML and its header figures (texts as given: the caller converts them and checks their lengths, nothing is cut). */
export function buildPain001(file: PaymentFile): BuiltFile {
  const { message, namespace } = MESSAGES[file.scheme];
  const transfers = file.batches.flatMap((b) => b.transfers);
  const ctrlSum = decimalSum(transfers.map((t) => t.amount));
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(namespace, 'Document').ele('CstmrCdtTrfInitn');
  const hdr = root.ele('GrpHdr');
  hdr.ele('MsgId').txt(file.msgId);
  hdr.ele('CreDtTm').txt(isoDateTime(file.createdAt));
  hdr.ele('NbOfTxs').txt(String(transfers.length));
  hdr.ele('CtrlSum').txt(ctrlSum);
  hdr.ele('InitgPty').ele('Nm').txt(file.debtor.name);
  for (const batch of file.batches) if (batch.transfers.length > 0) paymentInformation(root, file, batch);
  return { xml: doc.end({ prettyPrint: true }), message, nbOfTxs: transfers.length, ctrlSum };
}
