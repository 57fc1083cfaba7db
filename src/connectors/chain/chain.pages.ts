import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { link, postForm, status, table } from '../../faces/web/components.js';
import type { Tx } from '../../platform/db/db.js';
import { changeOnce } from '../../faces/web/forms.js';
import { html } from '../../platform/lib/html.js';
import { seeOther, sendPage, type Web } from '../../faces/web/web.js';
import { cancelConflict, resignConflict, resumeChain } from './chain.payouts.js';
import { configuredChains, decideChainDeposit, listChainDeposits, openChainPayouts, type ChainDepositView, type ChainPayoutView, type ChainView } from './chain.service.js';
import { chainSweeps, chainTreasury, conflictAction, resumeAction, type ChainTreasury } from './chain.treasury.js';
import { attempt, consolePage, operatorActor, consoleRoute, doneNotice, IdPath, refusalNotice, withDone, type Refusal } from '../../faces/console/console.kit.js';

/** The most recent held transfers the page shows; the operator API pages through all of them. */
const ROWS = 50;

/**
 * The chain connector: the treasury of each chain (balances, nonces, the breaker with Resume, the
 * conditions), the payouts on their way with their age (those in nonce conflict with Re-sign and
 * Cancel), each configured chain with the hot wallet to fund, and the transfers to deposit addresses
 * held for the operator (never credited).
 */
const age = (seconds: number | null): string => (seconds === null ? '' : seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.floor(seconds / 60)} min` : `${Math.floor(seconds / 3600)} h`);

/** A difference as the operator reads it: 0 plain, anything else in bold. */
const differenceCell = (difference: string) => (difference === '0' ? '0' : html`<strong>${difference}</strong>`);

/** The treasury of each chain: balances, nonces, payouts on their way, the breaker (with Resume), and the conditions. */
function treasuryTable(req: FastifyRequest, chains: ChainTreasury[]) {
  return table<ChainTreasury>(
    'Treasury (hot wallets)',
    [
      { label: 'Chain', cell: (t) => html`<code>${t.chain}</code>` },
      { label: 'Gas coin', numeric: true, cell: (t) => (t.gas ? html`${t.gas.balance} <span class="muted">(low below ${t.gas.lowBelow})</span>` : '') },
      { label: 'Tokens', cell: (t) => html`${t.tokens.map((x, i) => html`${i > 0 ? ', ' : ''}${x.balance} ${x.currency}`)}` },
      { label: 'Next nonce / chain', cell: (t) => (t.nonce ? `${t.nonce.next ?? '–'} / ${t.nonce.onChain}` : '') },
      { label: 'Processing', cell: (t) => `${t.processing.count} (oldest ${age(t.processing.oldestAgeSeconds) || '–'}), ${t.processing.conflicts} in conflict, ${t.processing.held} held` },
      { label: 'Last block', numeric: true, cell: (t) => t.lastBlock.head ?? '' },
      {
        label: 'Circuit breaker',
        cell: (t) =>
          t.breaker.open
            ? html`<strong>open</strong>: ${t.breaker.reason} <span class="muted">${t.breaker.detail ?? ''}</span> ${postForm({ action: `/console/chain/chains/${t.chain}/resume`, csrf: req.web.csrf, submit: 'Resume payouts', inline: true, confirm: `Resume the payouts of ${t.chain}? Fix the cause first (${t.breaker.reason}).` })}`
            : html`closed <span class="muted">(${t.breaker.streakCount}/${t.breaker.threshold} ${t.breaker.streakReason ?? ''})</span>`,
      },
      {
        label: 'Deposit addresses (on chain / records / difference, base units)',
        cell: (t) =>
          html`${t.reconciliation.map((r) => (r.depositAddresses ? html`<div>${r.currency}: ${r.depositAddresses.onChain} / ${r.depositAddresses.expected} / ${differenceCell(r.depositAddresses.difference)}</div>` : ''))}`,
      },
      {
        label: "Hot wallet against the ledger's float (on chain / ledger / difference, base units)",
        cell: (t) =>
          html`${t.reconciliation.map((r) =>
            r.hotWallet.ledger === null
              ? ''
              : html`<div>${r.currency}: ${r.hotWallet.onChain ?? '–'} / ${r.hotWallet.ledger} / ${differenceCell(r.hotWallet.difference ?? '–')} <span class="muted">(float ${r.hotWallet.ledgerAmount} ${r.currency}; paying out ${r.hotWallet.payingOut}, sweeping in ${r.hotWallet.sweepingIn}, swept in ${r.hotWallet.sweptIn})</span></div>`,
          )}`,
      },
      { label: 'Conditions', cell: (t) => html`${t.conditions.map((x) => html`<div><code>${x.code}</code> ${x.message}</div>`)}` },
    ],
    chains,
    'No chain is configured.',
  );
}

/** The payouts on their way with their age; those in conflict with Re-sign and Cancel. */
function openPayoutsTable(req: FastifyRequest, payouts: ChainPayoutView[]) {
  return table<ChainPayoutView>(
    'Chain payouts on their way (oldest first)',
    [
      { label: 'Payout', cell: (p) => html`<code>${p.payoutId}</code>` },
      { label: 'Chain', cell: (p) => p.chain },
      { label: 'Status', cell: (p) => status(p.status) },
      { label: 'Amount', numeric: true, cell: (p) => `${p.amount} ${p.currency}` },
      { label: 'To', cell: (p) => html`<code>${p.toAddress}</code>` },
      { label: 'Nonce', numeric: true, cell: (p) => p.nonce ?? '' },
      { label: 'Age', numeric: true, cell: (p) => age(p.ageSeconds) },
      { label: 'Detail', cell: (p) => p.errorDetail ?? '' },
      {
        label: 'Actions',
        cell: (p) =>
          p.status === 'conflict'
            ? html`<div class="actions">${postForm({ action: `/console/chain/payouts/${p.payoutId}/resign`, csrf: req.web.csrf, submit: 'Re-sign at a fresh nonce', inline: true, confirm: `Re-sign payout ${p.payoutId} at a fresh nonce? It is broadcast on the worker's next look.` })}${postForm({ action: `/console/chain/payouts/${p.payoutId}/cancel`, csrf: req.web.csrf, submit: 'Cancel (funds back)', danger: true, inline: true, confirm: `Cancel payout ${p.payoutId}? It fails and its funds go back to the balance.` })}</div>`
            : '',
      },
    ],
    payouts,
    'No chain payout is on its way.',
  );
}

async function chainPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const chains = await configuredChains(web.ctx.db, web.ctx.connectors);
  const held = await listChainDeposits(web.ctx.db, { status: 'held', limit: ROWS });
  const treasury = await chainTreasury(web.ctx);
  const open = await openChainPayouts(web.ctx.db);
  const sweeps = await chainSweeps(web.ctx, null, ROWS);
  const body = html`${doneNotice(req)}${refusalNotice(refusal)}<p>USDC and USDT payouts leave as ERC-20 transfers from each chain's hot wallet; deposit addresses are watched for transfers (docs/guides/crypto-rail.md). Set in the <code>chains</code> section of <code>CORRIDOR_CONNECTORS_FILE</code>.</p>
${treasuryTable(req, treasury)}
${openPayoutsTable(req, open)}
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
    {
      label: 'Decision',
      cell: (d) =>
        html`<div class="actions">${postForm({ action: `/console/chain/deposits/${d.id}/release`, csrf: req.web.csrf, submit: 'Release (credit)', inline: true, confirm: `Credit this ${d.currency ?? ''} deposit to its owner now? (held: ${d.reason ?? ''})` })}${postForm({ action: `/console/chain/deposits/${d.id}/reject`, csrf: req.web.csrf, submit: 'Reject', danger: true, inline: true, confirm: 'Reject this deposit? It is never credited; the tokens stay on the deposit address.' })}</div>`,
    },
  ],
  held.data,
  'No deposit is held.',
)}
${table<(typeof sweeps)[number]>(
  'Sweeps of deposit addresses into the hot wallet (newest first)',
  [
    { label: 'Chain', cell: (x) => x.chain },
    { label: 'From (deposit address)', cell: (x) => html`<code>${x.fromAddress}</code>` },
    { label: 'Amount', numeric: true, cell: (x) => `${x.amount ?? x.amountUnits} ${x.currency}` },
    { label: 'Method', cell: (x) => (x.method === 'authorization' ? 'EIP-3009 authorisation, relayed' : 'gas top-up, then transfer') },
    { label: 'Status', cell: (x) => status(x.status) },
    { label: 'Transaction', cell: (x) => html`<code>${x.txHash}</code>${x.topUpTxHash ? html` <span class="muted">(top-up <code>${x.topUpTxHash}</code>)</span>` : ''}` },
    { label: 'Error', cell: (x) => x.error ?? '' },
    { label: 'Recorded at', cell: (x) => x.createdAt },
  ],
  sweeps,
  'No deposit address was swept.',
)}`;
  return sendPage(web, req, reply, { title: 'Chain', body, status: refusal?.status });
}

/** A change from the Chain page, once per rendered form: back to the page saying it, or the page with the refusal. */
async function chainChange(web: Web, req: FastifyRequest, reply: FastifyReply, done: string, change: (tx: Tx) => Promise<unknown>): Promise<FastifyReply> {
  const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => (await change(tx), done)));
  if ('refused' in result) return chainPage(web, req, reply, result.refused);
  return seeOther(reply, result.done);
}

const ChainPath = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) });

export function chainPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console/chain', consolePage, async (req, reply) => chainPage(web, req, reply));
  app.post<{ Params: { id: string } }>('/console/chain/payouts/:id/resign', consoleRoute(IdPath, 'rails'), async (req, reply) => {
    const found = await attempt(() => conflictAction(ctx, req.params.id));
    if ('refused' in found) return chainPage(web, req, reply, found.refused);
    const { rail, node } = found.done;
    return chainChange(web, req, reply, withDone('/console/chain', 'chain-resign', req.params.id), (tx) => resignConflict(ctx, tx, rail, req.params.id, node));
  });
  app.post<{ Params: { id: string } }>('/console/chain/payouts/:id/cancel', consoleRoute(IdPath, 'rails'), async (req, reply) => {
    const found = await attempt(() => conflictAction(ctx, req.params.id));
    if ('refused' in found) return chainPage(web, req, reply, found.refused);
    return chainChange(web, req, reply, withDone('/console/chain', 'chain-cancel', req.params.id), (tx) => cancelConflict(ctx, tx, req.params.id, found.done.node));
  });
  for (const decision of ['release', 'reject'] as const) {
    app.post<{ Params: { id: string } }>(`/console/chain/deposits/:id/${decision}`, consoleRoute(IdPath, 'rails'), async (req, reply) =>
      chainChange(web, req, reply, withDone('/console/chain', `chain-deposit-${decision}`, req.params.id), (tx) => decideChainDeposit(ctx, tx, req.params.id, decision, operatorActor(req))),
    );
  }
  app.post<{ Params: { name: string } }>('/console/chain/chains/:name/resume', consoleRoute(ChainPath, 'rails'), async (req, reply) => {
    const found = await attempt(() => resumeAction(ctx, req.params.name));
    if ('refused' in found) return chainPage(web, req, reply, found.refused);
    const { rail, node } = found.done;
    return chainChange(web, req, reply, withDone('/console/chain', 'chain-resume', req.params.name), (tx) => resumeChain(ctx, tx, rail, node));
  });
}
