import type { AppContext } from '../../platform/context.js';
import { reportPayoutOutcomes } from '../../domains/payouts/payouts.port.js';
import { checkChainUrls } from './chain.client.js';
import { ChainConnector, NETWORK_NOT_SERVED } from './chain.connector.js';
import { followSent, sendAccepted } from './chain.payouts.js';
import type { ChainHooks, ChainRuntime } from './chain.rails.js';
import * as repo from './chain.repository.js';
import { sweepDeposits } from './chain.sweeps.js';
import { watchDeposits } from './chain.watcher.js';

/**
 * The chain connector's work beside the payouts step, in every worker process: one look at every
 * configured chain every CHAIN_POLL_MS (sign and broadcast accepted payouts, follow sent ones, take
 * confirmed deposits, sweep deposit addresses). Any number of workers may look at once: rows are locked (others' skipped),
 * nonces are taken under the wallet's nonce row lock, and the deposit checkpoint moves by
 * compare-and-set.
 */
export class ChainWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly connectors: ChainConnector[];
  /** What this worker last recorded per chain (null: up). */
  private readonly recorded = new Map<string, string | null>();

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
        // A chain not checked yet (its node did not answer at start) is checked before any work.
        if (!c.health.checked) await checkChainUrls(c.settings);
        c.health.checked = true;
        if (c.payouts) {
          await sendAccepted(this.ctx, c.payouts, hooks);
          await followSent(this.ctx, c.payouts, hooks);
        }
        if (c.deposits) {
          await watchDeposits(this.ctx, c.deposits);
          await sweepDeposits(this.ctx, c.deposits, hooks);
        }
        await this.record(c, null);
      } catch (err) {
        await this.record(c, err instanceof Error ? err.message.split('\n')[0] ?? err.message : String(err));
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** Records a chain up or down (on a change, and on the first look of this worker), for the console and the operator API. */
  private async record(c: ChainRuntime, error: string | null): Promise<void> {
    if (this.recorded.get(c.settings.name) === error) return;
    c.health.error = error;
    await repo.setChainStatus(this.ctx.db, c.settings.name, error === null, error);
    this.recorded.set(c.settings.name, error);
    if (error !== null) this.ctx.log.warn({ chain: c.settings.name, err: error }, 'chain down: its node does not answer or does not match; the worker tries again on every look');
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
