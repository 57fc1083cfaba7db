import http from 'node:http';
import type { AppContext } from '../../platform/context.js';
import { metricsText } from './sample.js';

/**
 * A process's metrics on a port of their own (METRICS_PORT, on METRICS_HOST): how Prometheus reaches
 * a worker process, which serves no API. Bind it to an address only the monitoring network reaches:
 * it asks for no key (the API's /operator/v1/metrics does).
 */
export async function serveMetrics(ctx: AppContext, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metricsText(ctx).then(
      ({ contentType, text }) => res.writeHead(200, { 'content-type': contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}
