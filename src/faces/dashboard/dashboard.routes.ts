import type { FastifyInstance } from 'fastify';
import { signInPages } from '../web/sign-in.pages.js';
import { companySignInPages } from '../web/company-sign-in.pages.js';
import { userPages } from '../web/users.pages.js';
import type { Web } from '../web/web.js';
import type { Storage } from '../../platform/storage/storage.js';
import { accountPages } from './accounts.pages.js';
import { approvalPages } from './approvals.pages.js';
import { beneficiaryPages } from './beneficiaries.pages.js';
import { beneficiaryFormPages } from './beneficiaries-new.pages.js';
import { companySignInSettingsPages } from './company-sign-in.pages.js';
import { credentialPages } from './credentials.pages.js';
import { eventPages } from './events.pages.js';
import { requestLogPages } from './request-logs.pages.js';
import { homePages } from './home.pages.js';
import { onboardingPages } from './onboarding.pages.js';
import { orderPages } from './orders.pages.js';
import { payoutPages } from './payouts.pages.js';
import { payoutFormPages } from './payouts-new.pages.js';
import { payoutImportPages } from './payouts-import.pages.js';
import { receivingPages } from './receiving.pages.js';
import { sandboxPages } from './sandbox.pages.js';
import { searchPages } from './search.pages.js';
import { webhookPages } from './webhooks.pages.js';

/** The workspace dashboard (/dashboard): every page reads and acts through the same services as the API. */
export function dashboardPages(app: FastifyInstance, web: Web, storage: Storage): void {
  signInPages(app, web, 'dashboard');
  companySignInPages(app, web, 'dashboard');
  homePages(app, web);
  accountPages(app, web);
  credentialPages(app, web);
  webhookPages(app, web);
  userPages(app, web, 'dashboard');
  companySignInSettingsPages(app, web);
  payoutFormPages(app, web);
  payoutImportPages(app, web);
  payoutPages(app, web);
  approvalPages(app, web);
  beneficiaryFormPages(app, web);
  beneficiaryPages(app, web);
  orderPages(app, web, storage);
  receivingPages(app, web);
  onboardingPages(app, web, storage);
  eventPages(app, web);
  requestLogPages(app, web);
  searchPages(app, web);
  sandboxPages(app, web);
}
