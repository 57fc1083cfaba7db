/** The audit log's port for connectors: an entry written in the caller's transaction, and a row attributed to its workspace. */
export { appendAudit, attributed } from './audit.service.js';
