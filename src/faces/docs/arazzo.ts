/**
 * The main integration flow as an Arazzo 1.0 workflow, served at /arazzo.json beside /openapi.json:
 * a token, a webhook endpoint, sandbox funds, a beneficiary, a quote, a payout with it, the payout
 * paid, and its signed webhook delivery. Steps name operations by their operationId, so the workflow
 * breaks (and test/docs/arazzo.test.ts fails) when the documented path does.
 */
export function arazzoDocument(baseUrl: string, audience: string): Record<string, unknown> {
  const auth = { name: 'Authorization', in: 'header', value: 'Bearer $steps.token.outputs.accessToken' };
  const key = (suffix: string) => ({ name: 'Idempotency-Key', in: 'header', value: `{$inputs.runId}-${suffix}` });
  return {
    arazzo: '1.0.1',
    info: { title: 'Corridor: from a token to a paid payout and its verified webhook', version: '1.0.0' },
    sourceDescriptions: [{ name: 'corridor', url: `${baseUrl}/openapi.json`, type: 'openapi' }],
    workflows: [
      {
        workflowId: 'firstPayout',
        summary: 'Token, webhook endpoint, beneficiary, quote, payout, paid; the payout.paid delivery is signed with the endpoint secret',
        inputs: {
          type: 'object',
          required: ['clientId', 'clientSecret', 'webhookUrl', 'runId'],
          properties: {
            clientId: { type: 'string' },
            clientSecret: { type: 'string', format: 'password' },
            webhookUrl: { type: 'string', description: 'Your HTTPS receiver (verify X-Service-Signature with the secret output)' },
            runId: { type: 'string', description: 'Prefix of this run\'s Idempotency-Keys and clientRef' },
          },
        },
        steps: [
          {
            stepId: 'token',
            operationId: 'createOauthToken',
            requestBody: {
              contentType: 'application/json',
              payload: { grant_type: 'client_credentials', client_id: '$inputs.clientId', client_secret: '$inputs.clientSecret', audience },
            },
            successCriteria: [{ condition: '$statusCode == 200' }],
            outputs: { accessToken: '$response.body#/access_token' },
          },
          {
            stepId: 'webhook',
            operationId: 'createWebhook',
            parameters: [auth, key('webhook')],
            requestBody: { contentType: 'application/json', payload: { url: '$inputs.webhookUrl', events: ['payout.paid'] } },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { endpointId: '$response.body#/id', secret: '$response.body#/secret' },
          },
          {
            stepId: 'fund',
            operationId: 'sandboxFundBalance',
            parameters: [auth, key('fund')],
            requestBody: { contentType: 'application/json', payload: { currency: 'USD', amount: '1000.00' } },
            successCriteria: [{ condition: '$statusCode == 201' }],
          },
          {
            stepId: 'beneficiary',
            operationId: 'createBeneficiary',
            parameters: [auth, key('beneficiary')],
            requestBody: {
              contentType: 'application/json',
              payload: {
                type: 'individual',
                name: 'Ada Lovelace',
                country: 'DE',
                address: '1 Hauptstrasse',
                city: 'Berlin',
                postcode: '10115',
                accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
              },
            },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { beneficiaryId: '$response.body#/id' },
          },
          {
            stepId: 'quote',
            operationId: 'createFxQuote',
            parameters: [auth, key('quote')],
            requestBody: { contentType: 'application/json', payload: { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '25.00', intent: 'payout' } },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { quoteId: '$response.body#/id' },
          },
          {
            stepId: 'payout',
            operationId: 'createPayout',
            parameters: [auth, key('payout')],
            requestBody: {
              contentType: 'application/json',
              payload: {
                clientRef: '$inputs.runId',
                amount: '25.00',
                currency: 'EUR',
                quoteId: '$steps.quote.outputs.quoteId',
                beneficiary: { id: '$steps.beneficiary.outputs.beneficiaryId' },
                senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' },
              },
            },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { payoutId: '$response.body#/id' },
          },
          {
            stepId: 'process',
            description: 'Sandbox: the provider takes the payout (a worker does this by itself after a few seconds)',
            operationId: 'sandboxProcessPayout',
            parameters: [auth, key('process'), { name: 'id', in: 'path', value: '$steps.payout.outputs.payoutId' }],
            successCriteria: [{ condition: '$statusCode == 200' }],
          },
          {
            stepId: 'pay',
            operationId: 'sandboxPayPayout',
            parameters: [auth, key('pay'), { name: 'id', in: 'path', value: '$steps.payout.outputs.payoutId' }],
            successCriteria: [{ condition: '$statusCode == 200' }],
          },
          {
            stepId: 'paid',
            operationId: 'getPayout',
            parameters: [auth, { name: 'id', in: 'path', value: '$steps.payout.outputs.payoutId' }],
            successCriteria: [{ condition: '$statusCode == 200' }, { condition: "$response.body#/status == 'paid'" }],
            outputs: { status: '$response.body#/status' },
          },
        ],
        outputs: {
          payoutId: '$steps.payout.outputs.payoutId',
          status: '$steps.paid.outputs.status',
          webhookSecret: '$steps.webhook.outputs.secret',
        },
      },
    ],
  };
}
