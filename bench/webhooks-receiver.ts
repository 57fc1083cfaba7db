/**
 * The benchmark's webhook receiver, in a process of its own: an HTTPS server that answers 200 at
 * once and remembers when each event id first arrived. Talks to its parent over IPC.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const firstArrival = new Map<string, number>();
/** Distinct events received, by type. */
const uniqueByType = new Map<string, number>();
/** Distinct events received, by type and the label of their payout's clientRef (`sustained` for `sustained-17`): `<type> <label>`. */
const uniqueByLabel = new Map<string, number>();
let requests = 0;
const now = () => performance.timeOrigin + performance.now();

const server = https.createServer(
  { cert: fs.readFileSync(process.env.BENCH_CERT_FILE as string), key: fs.readFileSync(process.env.BENCH_KEY_FILE as string), keepAliveTimeout: 30_000 },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      requests++;
      const { id, type, data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string; data?: { clientRef?: unknown } };
      if (!firstArrival.has(id)) {
        firstArrival.set(id, at);
        uniqueByType.set(type, (uniqueByType.get(type) ?? 0) + 1);
        if (typeof data?.clientRef === 'string') {
          const key = `${type} ${data.clientRef.replace(/-\d+$/, '')}`;
          uniqueByLabel.set(key, (uniqueByLabel.get(key) ?? 0) + 1);
        }
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  },
);

process.on('message', (message: { type: string; ids?: string[] }) => {
  if (message.type === 'count') process.send?.({ type: 'count', requests, unique: firstArrival.size, byType: Object.fromEntries(uniqueByType), byLabel: Object.fromEntries(uniqueByLabel) });
  if (message.type === 'cpu') {
    const cpu = process.cpuUsage();
    process.send?.({ type: 'cpu', ms: (cpu.user + cpu.system) / 1000 });
  }
  if (message.type === 'arrivals') process.send?.({ type: 'arrivals', arrivals: (message.ids ?? []).map((id) => firstArrival.get(id) ?? null) });
  if (message.type === 'stop') server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
