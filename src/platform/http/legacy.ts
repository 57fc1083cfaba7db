import type { FastifySchema } from 'fastify';
import type { App, Route } from './routes.js';

/**
 * Serves a route at its /v1 path and at its deprecated unversioned alias (`/fx/...`, `/ledger/...`),
 * the alias answering with `Deprecation: true` and a `Link` to its successor.
 */
export function routeWithLegacyAlias<S extends FastifySchema>(app: App, route: Route<S>): void {
  app.route(route);
  const aliasUrl = route.url.replace(/^\/v1\//, '/');
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  app.route({
    ...route,
    url: aliasUrl,
    schema: { ...schema, deprecated: true, summary: `${String(schema.summary ?? '')} (deprecated alias of ${route.url})` } as S,
    onSend: async (req, reply, payload) => {
      const successor = req.url.replace(/^\/(?!v1\/)/, '/v1/');
      reply.header('deprecation', 'true');
      reply.header('link', `<${successor}>; rel="successor-version"`);
      return payload;
    },
  });
}
