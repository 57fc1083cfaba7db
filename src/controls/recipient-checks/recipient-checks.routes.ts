import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { route, type App } from '../../platform/http/routes.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { PayoutSchema } from '../../domains/payouts/payouts.schemas.js';
import { BeneficiaryCheckBody, BeneficiaryCheckSchema } from './recipient-checks.schemas.js';
import * as checks from './recipient-checks.service.js';

const tags = ['Payouts'];

const where = (req: FastifyRequest): checks.AuditContext => ({ requestId: String(req.id), path: req.url.split('?')[0] ?? req.url });

const CHECK_TEXT =
  "Where the connector serving a payout's route offers a recipient check (Confirmation of Payee, a NIP name enquiry, a mobile-money account-name lookup), the payout is created `queued` with `recipientCheck: {status: \"pending\"}`, its funds held and nothing sent. The rail is asked (retried with backoff; `unavailable` after RECIPIENT_CHECK_ATTEMPTS_MAX calls). A `match` lets the payout proceed; anything else (`close_match`, `no_match`, `account_not_found`, `unavailable`) holds it with both names (`name`, `railName`) and emits `payout.recipient_check_required`, until the workspace confirms it here or cancels it (POST /v1/payouts/{id}/cancel, funds returned). The payout's `recipientCheck` (RecipientCheck) says what each result means on NIP name enquiry (Paystack, NGN) and Confirmation of Payee (ClearBank, GBP).";

/** The workspace's decision on a payout its recipient check holds, and the same check offered on a saved beneficiary. */
export function recipientCheckRoutes(app: App, ctx: AppContext): void {
  app.route(confirm(ctx));
  app.route(verifyBeneficiary(ctx));
}

function confirm(ctx: AppContext) {
  return route.post(
    '/v1/payouts/:id/recipient-check/confirm',
    {
      config: { auth: 'workspace', scope: 'write:payouts', capability: 'payouts' },
      schema: {
        tags,
        summary: 'Confirm a payout its recipient check holds (the name did not match, or the rail could not answer): it proceeds (audited)',
        description: `${CHECK_TEXT} Refused with 409 RECIPIENT_CHECK_NOT_HELD when the check does not hold the payout (none, pending, passed, confirmed, withdrawn), and with 409 RECIPIENT_ACCOUNT_NOT_FOUND when the rail knows no such account (cancel it instead). The answer is the payout, its \`recipientCheck\` \`confirmed\` with who and when.`,
        params: IdParams,
        response: { 200: PayoutSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await checks.confirmRecipient(ctx, tx, req.auth, req.params.id, where(req)) })),
  );
}

function verifyBeneficiary(ctx: AppContext) {
  return route.post(
    '/v1/beneficiaries/:id/verify-recipient',
    {
      config: { auth: 'workspace', scope: 'write:beneficiaries' },
      schema: {
        tags: ['Beneficiaries'],
        summary: "Check a beneficiary's account and name with the rail a payout in `currency` would go by (Confirmation of Payee, a name enquiry)",
        description:
          "Asks the connector serving the beneficiary's route for the account's holder and answers the result with both names: `match`, `close_match` (`railName` is the rail's name), `no_match`, `account_not_found` or `unavailable` (the rail could not answer: try again later). Nothing is held or stored. 409 RECIPIENT_CHECK_NOT_OFFERED when that route's connector offers no checks; 400 UNSUPPORTED_CORRIDOR when the beneficiary has no account a payout in that currency can pay.",
        params: IdParams,
        body: BeneficiaryCheckBody,
        response: { 200: BeneficiaryCheckSchema },
      },
    },
    async (req, reply) => {
      // The rail is asked before the key's transaction (a network call holds no transaction open); a
      // repeat under the same key is answered what was stored the first time.
      const answer = await checks.verifyBeneficiary(ctx, req.auth, req.params.id, req.body);
      return runIdempotent(ctx, req, reply, async () => ({ status: 200, body: answer }));
    },
  );
}
