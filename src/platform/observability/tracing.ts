import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { FastifyInstrumentation } from '@opentelemetry/instrumentation-fastify';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry traces (the Node SDK), exported by OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT: the
 * HTTP request (http and Fastify instrumentations), the database (pg) and Redis (ioredis) inside it,
 * and the connectors' outgoing HTTP calls. Started by bin/corridor.js before the application is
 * imported (the instrumentations hook the modules as they load), only when the endpoint is set.
 * Answers how to flush and stop it.
 */
export function startTracing(endpoint: string, serviceName: string): () => Promise<void> {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }), { scheduledDelayMillis: 1000 })],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/operator/v1/metrics' }),
      new FastifyInstrumentation(),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}
