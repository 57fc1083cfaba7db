import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { capabilitiesOf } from './capabilities.service.js';

const CapabilitiesSchema = Type.Object(
  {
    currencies: Type.Array(
      Type.Object({
        code: Type.String(),
        enabled: Type.Boolean({ description: 'Enabled for the workspace (defaults, or on request through the operator)' }),
        payouts: Type.Boolean({ description: 'Payouts in this currency: enabled, the payouts (crypto_payouts for crypto) capability on, and a provider of the corridor catalog pays it' }),
        deposits: Type.Boolean({ description: 'Deposits in this currency: enabled, the deposits capability on, and a virtual account currency or crypto' }),
        virtualAccounts: Type.Boolean({ description: 'Virtual accounts can be requested in this currency (not NGN in production: support issues those)' }),
        sandboxOnly: Type.Boolean({ description: 'Exists in the sandbox only' }),
      }),
    ),
    paymentMethods: Type.Array(
      Type.Object({
        route: Type.String({ description: 'The payout route (rail)' }),
        currencies: Type.Array(Type.String(), { description: 'Currencies enabled for payouts on this route' }),
        countries: Type.Array(Type.String(), { description: 'Destination countries (ISO 3166-1 alpha-2); empty when anyCountry is true' }),
        anyCountry: Type.Boolean({ description: 'Pays to any destination country (crypto): countries is then empty' }),
      }),
    ),
  },
  { title: 'Capabilities' },
);

export function capabilityRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/v1/capabilities',
    {
      config: { auth: 'workspace', scope: 'read:capabilities' },
      schema: {
        tags: ['Capabilities'],
        summary: 'Currencies and payment methods available to the caller (with Service-Account-Id, that sub-account: it shares its workspace\'s)',
        description: 'Derived from the corridor catalog, the workspace\'s currencies and its capabilities, as they are now: an operator change shows at once.',
        response: { 200: CapabilitiesSchema },
      },
    },
    async (req) =>
      capabilitiesOf({ env: ctx.config.env, enabledCurrencies: req.auth.workspace.enabledCurrencies, disabledCapabilities: req.auth.workspace.disabledCapabilities }),
  );
}
