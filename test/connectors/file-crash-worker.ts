/**
 * A worker process for the conformance suite's kill -9 test of a connector that delivers files (not
 * a test file): opens the database the test app uses, runs the job runner as a worker does, and when
 * the named connector's upload step is about to send a recorded file, announces `REACHED beforeSend`
 * on stdout and waits for ever, so the test kills it with SIGKILL exactly there: the file recorded,
 * its upload job claimed, nothing sent.
 *   node --import tsx test/connectors/file-crash-worker.ts <connector name>   (env: the test app's)
 */
import { loadConfig } from '../../src/platform/config.js';
import { createRunner } from '../../src/jobs.js';
import { createLogger, openContext } from '../../src/runtime.js';

interface FileTransport {
  deliver(fileName: string, bytes: Buffer): Promise<unknown>;
}

const name = process.argv[2];
if (!name) throw new Error('usage: file-crash-worker.ts <connector name>');
const config = loadConfig(process.env);
const ctx = await openContext(config, createLogger('silent'));
const connector = ctx.connectors.all().find((c) => c.name === name) as { runtime?: { transport?: FileTransport } } | undefined;
const transport = connector?.runtime?.transport;
if (!transport) throw new Error(`no connector named ${name} with a file transport is configured`);
transport.deliver = async () => {
  process.stdout.write('REACHED beforeSend\n');
  return new Promise(() => undefined);
};
createRunner(ctx).start();
