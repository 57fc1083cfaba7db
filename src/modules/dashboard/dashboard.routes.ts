import type { FastifyInstance } from 'fastify';
import type { Web } from '../../web/web.js';
import { dashboardAuthPages } from './auth.pages.js';
import { credentialPages } from './credentials.pages.js';
import { homePages } from './home.pages.js';
import { userPages } from './users.pages.js';
import { webhookPages } from './webhooks.pages.js';

/** The workspace dashboard (/dashboard): every page reads and acts through the same services as the API. */
export function dashboardPages(app: FastifyInstance, web: Web): void {
  dashboardAuthPages(app, web);
  homePages(app, web);
  credentialPages(app, web);
  webhookPages(app, web);
  userPages(app, web);
}
