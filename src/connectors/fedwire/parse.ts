import { amount, at, InboundParseError, isoDate, list, readIsoDocument, reason, required, text, type Amount, type Node, type Reason } from '../bank/bank.port.js';

export type { Amount, Reason };

/*
 * Reading what the US bank sends back on the wire channel (ISO 20022, as the Fedwire Funds Service
 * writes it): pacs.002 payment status reports (ACSC: settled; RJCT with the Fed's reason, such as
 * E433), pain.002 status reports (the bank's own answer to a wire file), pacs.004 returns (OrgnlUETR,
 * OrgnlEndToEndId, the amount returned and why) and admi.007 receipt acknowledgements. Read by
 * element names, the namespace kept as `version`. A file that declares a DOCTYPE or entities is
 * refused before it is parsed (no entity is ever expanded; the bank connector's safe reader, shared);
 * a message this connector does not apply is refused with the reason, so the operator knows where it
 * belongs. Nothing is guessed.
 */

/** What cannot be read, with the reason (the bank connector's reader's error: the helpers they share throw it). */
export const FedwireParseError = InboundParseError;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function uetr(node: unknown, what: string, ...path: string[]): string | undefined {
  const v = text(node, ...path)?.toLowerCase();
  if (v !== undefined && !UUID.test(v)) throw new FedwireParseError(`${what}: ${v} is not a UETR (a version 4 UUID)`);
  return v;
}

/** One transaction's status: by the UETR the wire left with and, when the report gives it, its EndToEndId. */
export interface TransactionStatus {
  uetr: string | undefined;
  endToEndId: string | undefined;
  status: string;
  reason: Reason | undefined;
  /** The message the status is about (the bank's pacs.008, or Corridor's pain.001). */
  originalMessageId: string | undefined;
}

export interface StatusMessage {
  kind: 'pacs.002' | 'pain.002';
  version: string;
  messageId: string;
  /** A pain.002 that rejects the whole wire file (GrpSts RJCT) names it here. */
  groupRejected: { originalMessageId: string; reason: Reason | undefined } | undefined;
  statuses: TransactionStatus[];
}

export interface ReturnedWire {
  uetr: string | undefined;
  endToEndId: string | undefined;
  returnId: string | undefined;
  amount: Amount;
  reason: Reason | undefined;
  settlementDate: string | undefined;
}

export interface ReturnMessage {
  kind: 'pacs.004';
  version: string;
  messageId: string;
  returns: ReturnedWire[];
}

export interface AcknowledgementMessage {
  kind: 'admi.007';
  version: string;
  messageId: string;
  acknowledgements: { reference: string; messageName: string | undefined; statusCode: string | undefined }[];
}

export type FedwireMessage = StatusMessage | ReturnMessage | AcknowledgementMessage;

function transactionStatus(tx: Node, groupMsgId: string | undefined): TransactionStatus {
  const status: TransactionStatus = {
    uetr: uetr(tx, 'the original UETR', 'OrgnlUETR'),
    endToEndId: text(tx, 'OrgnlEndToEndId'),
    status: required(tx, 'a transaction status (TxSts)', 'TxSts'),
    reason: reason(list(tx, 'StsRsnInf')[0]),
    originalMessageId: text(tx, 'OrgnlGrpInf', 'OrgnlMsgId') ?? groupMsgId,
  };
  if (!status.uetr && !status.endToEndId) throw new FedwireParseError('a transaction status names neither OrgnlUETR nor OrgnlEndToEndId: it cannot be tied to a wire');
  return status;
}

function fiStatus(doc: Node, version: string): StatusMessage {
  const root = doc['FIToFIPmtStsRpt'];
  const group = at(root, 'OrgnlGrpInfAndSts');
  const statuses = list(root, 'TxInfAndSts').map((tx) => transactionStatus(tx, text(group, 'OrgnlMsgId')));
  if (statuses.length === 0) throw new FedwireParseError('the pacs.002 holds no transaction status (TxInfAndSts)');
  return { kind: 'pacs.002', version, messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'), groupRejected: undefined, statuses };
}

function customerStatus(doc: Node, version: string): StatusMessage {
  const root = doc['CstmrPmtStsRpt'];
  const group = at(root, 'OrgnlGrpInfAndSts');
  const originalMessageId = required(group, 'the original message id', 'OrgnlMsgId');
  return {
    kind: 'pain.002',
    version,
    messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'),
    groupRejected: text(group, 'GrpSts') === 'RJCT' ? { originalMessageId, reason: reason(list(group, 'StsRsnInf')[0]) } : undefined,
    statuses: list(root, 'OrgnlPmtInfAndSts').flatMap((p) => list(p, 'TxInfAndSts').map((tx) => transactionStatus(tx, originalMessageId))),
  };
}

function paymentReturn(doc: Node, version: string): ReturnMessage {
  const root = doc['PmtRtr'];
  const returns = list(root, 'TxInf').map((tx) => {
    const r: ReturnedWire = {
      uetr: uetr(tx, 'the original UETR', 'OrgnlUETR'),
      endToEndId: text(tx, 'OrgnlEndToEndId'),
      returnId: text(tx, 'RtrId'),
      amount: amount(tx, 'the returned amount', 'RtrdIntrBkSttlmAmt'),
      reason: reason(list(tx, 'RtrRsnInf')[0]),
      settlementDate: isoDate(text(tx, 'IntrBkSttlmDt'), 'the settlement date of a return (IntrBkSttlmDt)'),
    };
    if (!r.uetr && !r.endToEndId) throw new FedwireParseError('a return names neither OrgnlUETR nor OrgnlEndToEndId: it cannot be tied to a wire');
    return r;
  });
  if (returns.length === 0) throw new FedwireParseError('the pacs.004 holds no returned transaction (TxInf)');
  return { kind: 'pacs.004', version, messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'), returns };
}

function acknowledgement(doc: Node, version: string): AcknowledgementMessage {
  const root = doc['RctAck'];
  const reports = list(root, 'Rpt');
  if (reports.length === 0) throw new FedwireParseError('the admi.007 acknowledges nothing (no Rpt)');
  return {
    kind: 'admi.007',
    version,
    messageId: required(root, 'the message id', 'MsgId', 'MsgId'),
    acknowledgements: reports.map((r) => ({ reference: required(r, 'the acknowledged reference', 'RltdRef', 'Ref'), messageName: text(r, 'RltdRef', 'MsgNm'), statusCode: text(r, 'ReqHdlg', 'StsCd') })),
  };
}

const READERS: Record<string, (doc: Node, version: string) => FedwireMessage> = {
  FIToFIPmtStsRpt: fiStatus,
  CstmrPmtStsRpt: customerStatus,
  PmtRtr: paymentReturn,
  RctAck: acknowledgement,
};

/** Messages that come on a Fedwire channel but are not this connector's to apply, with where they belong. */
const REFUSED: Record<string, string> = {
  FIToFICstmrCdtTrf:
    'a pacs.008 is a customer credit transfer between banks (the message the bank sends the Fed for a wire, or a wire received): Corridor does not apply it. A wire to the operator\'s account is read from the bank\'s camt.054 credit notification by the bank connector; a copy of an outgoing wire changes nothing, the pacs.002 that answers it does',
  RsltnOfInvstgtn:
    'a camt.029 answers a request to cancel or return a wire (camt.056); the fedwire connector sends none, so there is nothing to apply: a return agreed to arrives as a pacs.004, which is applied',
  FIToFIPmtCxlReq: 'a camt.056 asks the receiving bank to cancel or return a wire; the operator\'s bank sends those, Corridor does not read them',
};

/** Reads one file of the bank's outbox; throws FedwireParseError with the reason when it is not a message the connector applies. */
export function parseFedwireFile(file: Buffer | string): FedwireMessage {
  const { doc, version } = readIsoDocument(file);
  const name = Object.keys(doc).find((k) => k in READERS || k in REFUSED);
  if (!name) throw new FedwireParseError(`a ${version} message: the fedwire connector reads pacs.002, pain.002, pacs.004 and admi.007`);
  const refused = REFUSED[name];
  if (refused) throw new FedwireParseError(`${version}: ${refused}`);
  try {
    return (READERS[name] as (typeof READERS)[string])(doc, version);
  } catch (err) {
    throw new FedwireParseError(`${version}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
