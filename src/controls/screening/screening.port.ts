/** Screening's port for connectors: on-chain addresses screened against the lists, and the evidence of a hit. */
export { screenAddresses, type ScreeningEvidence } from './screening.addresses.js';
export { EvidenceSchema } from './screening.schemas.js';
