import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { BankFileListQuery, BankFilePage, HeldPayoutListQuery, HeldPayoutPage, InboundFileListQuery, InboundFilePage } from './bank.schemas.js';
import { listBankFiles, listHeldPayouts } from './bank.service.js';
import { listInboundFiles } from './inbound/inbound.service.js';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** The operator's view of the bank connector: its outbound files, the payouts it holds, and the files taken in from the bank. */
export function bankRoutes(app: App, ctx: AppContext): void {
  app.route(listFiles(ctx));
  app.route(listHeld(ctx));
  app.route(listInbound(ctx));
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

function listInbound(ctx: AppContext) {
  return route.get(
    '/operator/v1/bank/inbound-files',
    {
      config: { auth: 'operator' },
      schema: { ...operator, summary: 'Files taken in from the bank, newest first; quarantined ones with the reason', querystring: InboundFileListQuery, response: { 200: InboundFilePage } },
    },
    async (req) => listInboundFiles(ctx.db, req.query),
  );
}
