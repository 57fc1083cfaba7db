import type { FastifyInstance } from 'fastify';
import type { Web } from '../../web/web.js';
import { dashboardAuthPages } from './auth.pages.js';
import { homePages } from './home.pages.js';

/** The workspace dashboard (/dashboard): every page reads and acts through the same services as the API. */
export function dashboardPages(app: FastifyInstance, web: Web): void {
  dashboardAuthPages(app, web);
  homePages(app, web);
}
