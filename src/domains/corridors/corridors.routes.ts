import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { getBeneficiaryAccount } from '../beneficiaries/beneficiaries.service.js';
import { availableRails } from './available-rails.js';
import { servedCatalog } from './catalog.js';
import { corridorTableHtml, corridorTableMarkdown } from './corridor-table.js';
import { AvailableRailsQuery, AvailableRailsSchema, PayoutRequirementsSchema, RequirementsQuery } from './corridors.schemas.js';
import { payoutRequirements } from './requirements.js';

const REQUIREMENTS_DOC = `What a payout corridor requires of the recipient and the sender, from the corridor catalog (the same data submit-time validation reads).

- Without \`route\`, the answer is combined across every rail serving the currency (union of required fields, optional fields less the required, union of rules), so satisfying it satisfies the most demanding rail; a combined rule is enforced at submit only where the paying provider applies it.
- \`route=swift\` without \`country\` is combined across the SWIFT providers; with \`country\` (the beneficiary's) it is that country's provider, and so its name rules.
- \`route=mobile_money\` with \`country\` is the destination country's provider.
- With \`route\`, \`required\` and \`optional\` come from the providers in default routing on that rail (on a rail served only outside default routing, from the providers serving it), while \`rules\` come from the providers whose name checks run at submit. Each rule is enforced at submit with a 400 naming the field and a stable code (MISSING_BENEFICIARY_NAME for the first/last name split, RECIPIENT_DETAILS_INVALID otherwise).
- \`name\`, \`country\` and \`accounts\` are always required and never listed. A business is never asked for \`dateOfBirth\`; an individual on a crypto corridor must give it while the workspace's Travel Rule screening is on.
- 404 CORRIDOR_NOT_FOUND when no provider serves the currency, the currency over the route, mobile money into the country, or international transfers to the country.

Corridors (generated from the catalog; also at GET /docs/corridors):

`;

/** The corridor catalog over HTTP: payout requirements, the rails of a beneficiary account, the corridor table. */
export function corridorRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Static<typeof RequirementsQuery> }>(
    '/v2/payouts/requirements',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: {
        tags: ['Payouts'],
        summary: 'What a corridor requires of the recipient and the sender',
        description: REQUIREMENTS_DOC + corridorTableMarkdown(),
        querystring: RequirementsQuery,
        response: { 200: PayoutRequirementsSchema },
      },
    },
    async (req) => {
      return payoutRequirements({
        currency: req.query.currency.toUpperCase(),
        route: req.query.route,
        country: req.query.country?.toUpperCase(),
        travelRuleScreening: req.auth.workspace.terms.travelRuleScreening,
      });
    },
  );

  app.get<{ Querystring: Static<typeof AvailableRailsQuery> }>(
    '/v1/payouts/available-rails',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: {
        tags: ['Payouts'],
        summary: 'The rails currently serving a beneficiary account',
        description:
          'One entry per rail with a provider that pays the account (currency, account type, country, network), with its amount bounds and whether the beneficiary passes that rail’s recipient checks now. Empty when the beneficiary is not active, the currency is not enabled for the workspace, or payouts are switched off. `autoRoute` is the rail an EUR or GBP payout sent without route takes. An unknown account id is 404.',
        querystring: AvailableRailsQuery,
        response: { 200: AvailableRailsSchema },
      },
    },
    async (req) => {
      const scope = { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId };
      const { beneficiary, account, accountIndex } = await getBeneficiaryAccount(ctx.db, ctx.box, scope, req.query.accountId);
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      const rails = availableRails(beneficiary, accountIndex, {
        enabledCurrencies: workspace.enabled_currencies,
        disabledCapabilities: workspace.disabled_capabilities,
        catalog: servedCatalog('crypto', ctx.connectors.forRoute('crypto', req.auth.workspaceId, undefined).servedNetworks?.('crypto')),
      });
      return { object: 'rail.list' as const, accountId: account.id, beneficiaryId: beneficiary.id, currency: account.currency, ...rails };
    },
  );

  app.get(
    '/docs/corridors',
    { config: { auth: 'none' }, schema: { hide: true } },
    async (_req, reply) => reply.type('text/html; charset=utf-8').send(corridorTableHtml()),
  );
}
