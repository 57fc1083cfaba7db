#!/usr/bin/env node
// Runs the TypeScript sources directly, so `npm ci && npm start` needs no build step.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

// Tracing, when an OTLP endpoint is configured: the instrumentations' loader hook and the SDK come
// before the application is imported, so http, fastify, pg and ioredis are instrumented as they load.
const otlpEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
// Only the modules instrumented are wrapped (the hook would otherwise wrap every module, ours too).
if (otlpEndpoint) registerHooks('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['http', 'https', 'node:http', 'node:https', 'fastify', 'pg', 'pg-pool', 'ioredis'] } });
register();
if (otlpEndpoint) {
  const { startTracing } = await import('../src/platform/observability/tracing.ts');
  const stop = startTracing(otlpEndpoint, process.env.OTEL_SERVICE_NAME || 'corridor');
  process.once('beforeExit', () => void stop());
}
await import('../src/main.ts');
