/**
 * What another file connector (fedwire, src/connectors/fedwire) takes of the bank connector instead
 * of copying it: the one SFTP transport, the outbound record (bank_payouts, bank_files: recorded
 * before sent, delivered by the one upload step), the inbound record (bank_inbound_files: every file
 * by its hash and its message id, taken in once), the pain.001 schema check and the EPC Latin texts.
 */
export { transportOf, type BankTransport } from './bank.transport.js';
export type { BankSftp } from './bank.config.js';
export { runUpload } from './bank.service.js';
export { endToEndIdOf, payoutIdOfEndToEndId, textErrors } from './bank.instructions.js';
export { toEpcLatin } from './epc-latin.js';
export { decimalSum, transferAtLine } from './pain001.js';
export { validatePain001, type Validation } from './pain001.validate.js';
export { STATUS_REASONS, RETURN_REASONS, type ReasonCode } from './inbound/reason-codes.js';
export type { InboundSource, WaitingFile } from './inbound/inbound.source.js';
export { readWhole } from './inbound/inbound.source.js';
export {
  insertBankPayouts,
  releaseBankPayout,
  lockWindow,
  pendingOfWindow,
  pendingWindows,
  insertBankFile,
  fileInBlocks,
  holdBankPayouts,
  payoutsOfMessage,
  type NewBankPayout,
  type PendingRow,
} from './bank.repository.js';
export {
  insertFile as insertInboundFile,
  findFileBySha as findInboundFileBySha,
  countAttempt as countInboundReadAttempt,
  quarantineFile as quarantineInboundFile,
  startApplying as startApplyingInboundFile,
  lockFile as lockInboundFile,
  chunkApplied as inboundFileApplied,
  findMessageFile as findInboundMessageFile,
  type InboundFileRow,
} from './inbound/inbound.repository.js';
export { readIsoDocument, isoDate, at, text, list, required, amount, reason, InboundParseError, type Node, type Amount, type Reason } from './inbound/iso20022.parse.js';
export { takeInEach } from './inbound/inbound.service.js';
