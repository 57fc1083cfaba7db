import type { AppContext } from '../../context.js';
import { reportPayoutOutcomes } from '../payouts/payouts.outcomes.js';
import { ChainConnector, NETWORK_NOT_SERVED } from './chain.connector.js';
import { followSent, sendAccepted } from './chain.payouts.js';
import type { ChainHooks } from './chain.rails.js';
import * as repo from './chain.repository.js';
import { watchDeposits } from './chain.watcher.js';

/**
 * The chain connector's work beside the payouts step, in every worker process: one look at every
 * configured chain every CHAIN_POLL_MS (sign and broadcast accepted payouts, follow sent ones, take
 * confirmed deposits). Any number of workers may look at once: rows are locked (others' skipped),
 * nonces are taken under the wallet's nonce row lock, and the deposit checkpoint moves by
 * compare-and-set.
 */
export class ChainWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly connectors: ChainConnector[];

  constructor(
    private readonly ctx: AppContext,
    private readonly options: { hooks?: ChainHooks; connector?: ChainConnector } = {},
  ) {
    this.connectors = options.connector ? [options.connector] : ctx.connectors.all().filter((c): c is ChainConnector => c instanceof ChainConnector);
  }

  /** Fails the payouts `accept` recorded refused (no configured chain pays them, or a deposit address of Corridor's), funds released. */
  private async failRefused(): Promise<void> {
    await this.ctx.db.tx(async (tx) => {
      const refused = await repo.lockRefused(tx, 100);
      if (refused.length === 0) return;
      const reasons = refused.map((r) => ({ payoutId: r.payout_id, reason: r.failure_reason ?? NETWORK_NOT_SERVED }));
      await reportPayoutOutcomes(this.ctx, tx, reasons.map((r) => ({ payoutId: r.payoutId, move: 'fail' as const, failureReason: r.reason })));
      for (const r of reasons) await repo.setStatus(tx, r.payoutId, 'failed', r.reason);
    });
  }

  /** One look at every chain; throws the first chain's failure after looking at all. */
  async tick(): Promise<void> {
    if (this.connectors.length === 0) return;
    let failure: unknown;
    await this.failRefused();
    const hooks = this.options.hooks ?? {};
    for (const c of this.connectors.flatMap((connector) => connector.chains)) {
      try {
        if (c.payouts) {
          await sendAccepted(this.ctx, c.payouts, hooks);
          await followSent(this.ctx, c.payouts, hooks);
        }
        if (c.deposits) await watchDeposits(this.ctx, c.deposits);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  start(): void {
    if (this.timer !== undefined || this.connectors.length === 0) return;
    const loop = () => {
      this.running = this.tick()
        .catch((err: unknown) => this.ctx.log.warn({ err: err instanceof Error ? err.message.split('\n')[0] : String(err) }, 'chain look failed; tried again on the next'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(loop, this.ctx.config.chainPollMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    if (timer) clearTimeout(timer);
    await this.running;
  }
}
