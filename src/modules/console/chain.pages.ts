import type { FastifyInstance } from 'fastify';
import { link, table } from '../../web/components.js';
import { html } from '../../web/html.js';
import { sendPage, type Web } from '../../web/web.js';
import { configuredChains, listChainDeposits, type ChainDepositView, type ChainView } from '../chain/chain.service.js';
import { consolePage } from './console.kit.js';

/** The most recent held transfers the page shows; the operator API pages through all of them. */
const ROWS = 50;

/**
 * The chain connector (read only): each configured chain with the hot wallet to fund, and the
 * transfers to deposit addresses held for the operator (never credited).
 */
export function chainPages(app: FastifyInstance, web: Web): void {
  app.get('/console/chain', consolePage, async (req, reply) => {
    const chains = await configuredChains(web.ctx.db, web.ctx.connectors);
    const held = await listChainDeposits(web.ctx.db, { status: 'held', limit: ROWS });
    const body = html`<p>USDC and USDT payouts leave as ERC-20 transfers from each chain's hot wallet; deposit addresses are watched for transfers (docs/guides/crypto-rail.md). Set in the <code>chains</code> section of <code>CORRIDOR_CONNECTORS_FILE</code>.</p>
${table<ChainView>(
  'Chains',
  [
    { label: 'Chain', cell: (c) => html`<code>${c.name}</code>` },
    { label: 'Network', cell: (c) => c.network },
    { label: 'Chain id', numeric: true, cell: (c) => String(c.chainId) },
    { label: 'Confirmations', numeric: true, cell: (c) => String(c.confirmations) },
    { label: 'Hot wallet (fund with the tokens and the gas coin)', cell: (c) => (c.hotWallet ? html`<code>${c.hotWallet}</code>` : html`<span class="muted">does not pay out</span>`) },
    { label: 'Tokens', cell: (c) => html`${Object.entries(c.tokens).map(([currency, address], i) => html`${i > 0 ? ', ' : ''}${currency} <code>${address}</code>`)}` },
    { label: 'Deposits', cell: (c) => (c.receives ? 'watched' : html`<span class="muted">not received</span>`) },
    { label: 'Node', cell: (c) => (c.status === 'down' ? html`<strong>down</strong>: ${c.error ?? ''} (payouts and deposits wait; retried on every look)` : c.status) },
  ],
  chains,
  'No chain is configured.',
)}
${table<ChainDepositView>(
  'Held deposits (operator queue, never credited)',
  [
    { label: 'Transaction', cell: (d) => html`<code>${d.txHash}</code> #${String(d.logIndex)} on ${d.chain}` },
    { label: 'Workspace', cell: (d) => link(`/console/workspaces/${d.workspaceId}`, d.workspaceId) },
    { label: 'Token', cell: (d) => (d.currency ? d.currency : html`<code>${d.token}</code>`) },
    { label: 'Amount', numeric: true, cell: (d) => (d.amount ? `${d.amount} ${d.currency ?? ''}` : html`${d.amountMinor} <span class="muted">base units</span>`) },
    { label: 'From', cell: (d) => html`<code>${d.fromAddress}</code>` },
    { label: 'To', cell: (d) => html`<code>${d.toAddress}</code>` },
    { label: 'Reason', cell: (d) => d.reason ?? '' },
    { label: 'Seen at', cell: (d) => d.createdAt },
  ],
  held.data,
  'No deposit is held.',
)}`;
    return sendPage(web, req, reply, { title: 'Chain', body });
  });
}
