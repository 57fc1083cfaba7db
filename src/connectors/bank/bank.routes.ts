import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { BankFileListQuery, BankFilePage, HeldPayoutListQuery, HeldPayoutPage } from './bank.schemas.js';
import { listBankFiles, listHeldPayouts } from './bank.service.js';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** The operator's view of the bank connector's outbound side: its files, and the payouts it holds. */
export function bankRoutes(app: App, ctx: AppContext): void {
  app.route(listFiles(ctx));
  app.route(listHeld(ctx));
}

function listFiles(ctx: AppContext) {
  return route.get(
    '/operator/v1/bank/files',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: 'The pain.001 files of the bank connector, newest first: recorded (waiting for upload, with the last delivery error), delivered, or invalid (never left)',
        querystring: BankFileListQuery,
        response: { 200: BankFilePage },
      },
    },
    async (req) => listBankFiles(ctx.db, req.query),
  );
}

function listHeld(ctx: AppContext) {
  return route.get(
    '/operator/v1/bank/held-payouts',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          "The operator's queue of the bank connector: payouts whose file failed its XSD validation (with the validator's message) or that no file can carry; they stay queued until the operator fails them (POST /operator/v1/payouts/{id}/fail)",
        querystring: HeldPayoutListQuery,
        response: { 200: HeldPayoutPage },
      },
    },
    async (req) => listHeldPayouts(ctx.db, req.query),
  );
}
