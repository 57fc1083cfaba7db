/**
 * A worker process for the kill -9 tests (not a test file): opens the database the test app uses,
 * looks at the chains once with a hook that announces `REACHED <point>` on stdout and then waits
 * for ever, so the test kills it with SIGKILL exactly there (after signing and before broadcast, or
 * after broadcast and before the record is updated).
 * (afterSweepSigned: a sweep recorded with its signed bytes, nothing of it sent; afterTopUpMined: a
 * USDT sweep's gas top-up mined and recorded, the deposit address's transfer not sent).
 *   node --import tsx test/chain/crash-worker.ts afterSign|afterBroadcast|afterSweepSigned|afterTopUpMined   (env: the test app's)
 */
import { loadConfig } from '../../src/platform/config.js';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { createLogger, openContext } from '../../src/runtime.js';

const point = process.argv[2];
const POINTS = ['afterSign', 'afterBroadcast', 'afterSweepSigned', 'afterTopUpMined'] as const;
if (!POINTS.includes(point as (typeof POINTS)[number])) throw new Error(`usage: crash-worker.ts ${POINTS.join('|')}`);
const config = loadConfig(process.env);
const ctx = await openContext(config, createLogger('silent'));
const stop = async () => {
  process.stdout.write(`REACHED ${point}\n`);
  await new Promise(() => undefined);
};
await new ChainWorker(ctx, { hooks: { [point as (typeof POINTS)[number]]: stop } }).tick();
process.stdout.write('DONE without reaching the point\n');
process.exit(2);
