import { ChainConnector, chainConnectorFactory, NETWORK_NOT_SERVED } from './chain.connector.js';
import { REVERTED_REASON } from './chain.payouts.js';
import { treasuryConditionSource } from './chain.treasury.js';
import { ChainWorker } from './chain.worker.js';
import { defineConnector } from '../definition.js';

/**
 * The chain connector: ERC-20 payouts from a hot wallet and deposits to watched addresses, from the
 * "chains" section. Its loop (sign and broadcast, follow, watch deposits) runs in every worker every
 * CHAIN_POLL_MS; its backlog is what was handed over and not yet broadcast.
 */
export const chain = defineConnector<ChainConnector>({
  name: 'chain',
  section: 'chains',
  build: (section, deps) => chainConnectorFactory(section, deps),
  reasons: [
    { code: NETWORK_NOT_SERVED, words: "no configured chain pays the beneficiary's network or token", actor: 'beneficiary' },
    { code: REVERTED_REASON, words: 'the transfer was reverted on the chain (the hot wallet short of tokens or gas)', actor: 'operator' },
  ],
  workers: (ctx, connector) => {
    const worker = new ChainWorker(ctx, { connector });
    return [{ name: 'chain', everyMs: ctx.config.chainPollMs, tick: () => worker.tick() }];
  },
  backlog: ['queued'],
  conditions: [treasuryConditionSource],
});
