import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { decimalSum } from '../bank/bank.port.js';
import type { FedwireAccount, FedwireAddress } from './config.js';

/**
 * The wire file Corridor sends its US bank: an ISO 20022 customer credit transfer initiation,
 * pain.001.001.10 (a corporate instructs its bank with pain.001; the bank, a Fedwire participant,
 * turns each transfer into the pacs.008 it sends the Fed, docs/guides/fedwire.md). Every transfer:
 * service level URGP (a wire), its EndToEndId and its UETR (which the bank carries into the pacs.008
 * and the Fed's pacs.002 names back), USD, the beneficiary's bank by its ABA routing number as the
 * clearing system member id (`USABA`), the beneficiary's account number, name and US address.
 * The debtor's bank is named the same way. Built with xmlbuilder2: every value escaped.
 */

export const FEDWIRE_MESSAGE = 'pain.001.001.10';
const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.10';

export interface WireTransfer {
  endToEndId: string;
  uetr: string;
  /** Decimal with two places. */
  amount: string;
  creditor: { name: string; address: FedwireAddress | undefined };
  accountNumber: string;
  routingNumber: string;
  remittance?: string | undefined;
  ultimateDebtor?: string | undefined;
}

export interface WireFile {
  msgId: string;
  /** The payment information block's id. */
  pmtInfId: string;
  createdAt: Date;
  /** The Fedwire business day the bank is asked to execute on (YYYY-MM-DD). */
  executionDate: string;
  debtor: FedwireAccount;
  transfers: readonly WireTransfer[];
}

const isoDateTime = (d: Date): string => `${d.toISOString().slice(0, 19)}+00:00`;

function postalAddress(parent: XMLBuilder, a: FedwireAddress): void {
  const adr = parent.ele('PstlAdr');
  if (a.street) adr.ele('StrtNm').txt(a.street);
  if (a.buildingNumber) adr.ele('BldgNb').txt(a.buildingNumber);
  if (a.postcode) adr.ele('PstCd').txt(a.postcode);
  adr.ele('TwnNm').txt(a.town);
  if (a.subdivision) adr.ele('CtrySubDvsn').txt(a.subdivision);
  adr.ele('Ctry').txt(a.country);
}

/** A bank named by its ABA routing number: the Fedwire participant's clearing system member id. */
function abaAgent(parent: XMLBuilder, element: string, routingNumber: string): void {
  const member = parent.ele(element).ele('FinInstnId').ele('ClrSysMmbId');
  member.ele('ClrSysId').ele('Cd').txt('USABA');
  member.ele('MmbId').txt(routingNumber);
}

function transfer(parent: XMLBuilder, t: WireTransfer): void {
  const tx = parent.ele('CdtTrfTxInf');
  const pmtId = tx.ele('PmtId');
  pmtId.ele('EndToEndId').txt(t.endToEndId);
  pmtId.ele('UETR').txt(t.uetr);
  tx.ele('Amt').ele('InstdAmt', { Ccy: 'USD' }).txt(t.amount);
  if (t.ultimateDebtor) tx.ele('UltmtDbtr').ele('Nm').txt(t.ultimateDebtor);
  abaAgent(tx, 'CdtrAgt', t.routingNumber);
  const cdtr = tx.ele('Cdtr');
  cdtr.ele('Nm').txt(t.creditor.name);
  if (t.creditor.address) postalAddress(cdtr, t.creditor.address);
  tx.ele('CdtrAcct').ele('Id').ele('Othr').ele('Id').txt(t.accountNumber);
  if (t.remittance) tx.ele('RmtInf').ele('Ustrd').txt(t.remittance);
}

/** The file's XML and its figures (texts as given: the caller converted them and checked their lengths). */
export function buildWireFile(file: WireFile): { xml: string; nbOfTxs: number; ctrlSum: string } {
  const ctrlSum = decimalSum(file.transfers.map((t) => t.amount));
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(NAMESPACE, 'Document').ele('CstmrCdtTrfInitn');
  const hdr = root.ele('GrpHdr');
  hdr.ele('MsgId').txt(file.msgId);
  hdr.ele('CreDtTm').txt(isoDateTime(file.createdAt));
  hdr.ele('NbOfTxs').txt(String(file.transfers.length));
  hdr.ele('CtrlSum').txt(ctrlSum);
  hdr.ele('InitgPty').ele('Nm').txt(file.debtor.name);
  const pmt = root.ele('PmtInf');
  pmt.ele('PmtInfId').txt(file.pmtInfId);
  pmt.ele('PmtMtd').txt('TRF');
  pmt.ele('BtchBookg').txt('false');
  pmt.ele('NbOfTxs').txt(String(file.transfers.length));
  pmt.ele('CtrlSum').txt(ctrlSum);
  pmt.ele('PmtTpInf').ele('SvcLvl').ele('Cd').txt('URGP');
  pmt.ele('ReqdExctnDt').ele('Dt').txt(file.executionDate);
  const dbtr = pmt.ele('Dbtr');
  dbtr.ele('Nm').txt(file.debtor.name);
  if (file.debtor.address) postalAddress(dbtr, file.debtor.address);
  const acct = pmt.ele('DbtrAcct');
  acct.ele('Id').ele('Othr').ele('Id').txt(file.debtor.accountNumber);
  acct.ele('Ccy').txt('USD');
  abaAgent(pmt, 'DbtrAgt', file.debtor.routingNumber);
  pmt.ele('ChrgBr').txt('DEBT');
  for (const t of file.transfers) transfer(pmt, t);
  return { xml: doc.end({ prettyPrint: true }), nbOfTxs: file.transfers.length, ctrlSum };
}
