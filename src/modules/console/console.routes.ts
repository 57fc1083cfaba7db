import type { FastifyInstance } from 'fastify';
import type { Web } from '../../web/web.js';
import { consoleAuthPages } from './auth.pages.js';
import { workspaceAccessPages } from './workspace-access.pages.js';
import { workspacePages } from './workspaces.pages.js';

/** The operator console (/console): every action goes through the operator API's services and lands in the audit log. */
export function consolePages(app: FastifyInstance, web: Web): void {
  consoleAuthPages(app, web);
  workspacePages(app, web);
  workspaceAccessPages(app, web);
}
