import type { FastifyInstance } from 'fastify';
import { userPages } from '../web/users.pages.js';
import type { Web } from '../web/web.js';
import type { Storage } from '../../platform/storage/storage.js';
import { alertPages } from './alerts.pages.js';
import { applicationPages } from './applications.pages.js';
import { auditPages } from './audit.pages.js';
import { achPages } from '../../connectors/ach/ach.pages.js';
import { bankPages } from '../../connectors/bank/bank.pages.js';
import { chainPages } from '../../connectors/chain/chain.pages.js';
import { fedwirePages } from '../../connectors/fedwire/fedwire.pages.js';
import { consoleAuthPages } from './auth.pages.js';
import { connectorPages } from './connectors.pages.js';
import { orderPages } from './orders.pages.js';
import { manualQueuePages } from '../../connectors/manual/manual-queue.pages.js';
import { reconciliationPages } from './reconciliation.pages.js';
import { screeningPages } from './screening.pages.js';
import { workspaceAccessPages } from './workspace-access.pages.js';
import { workspacePages } from './workspaces.pages.js';

/** The operator console (/console): every action goes through the operator API's services and lands in the audit log. */
export function consolePages(app: FastifyInstance, web: Web, storage: Storage): void {
  consoleAuthPages(app, web);
  workspacePages(app, web);
  workspaceAccessPages(app, web);
  orderPages(app, web, storage);
  applicationPages(app, web, storage);
  manualQueuePages(app, web);
  reconciliationPages(app, web);
  screeningPages(app, web);
  userPages(app, web, 'console');
  auditPages(app, web);
  connectorPages(app, web);
  bankPages(app, web);
  achPages(app, web);
  fedwirePages(app, web);
  chainPages(app, web);
  alertPages(app, web);
}
