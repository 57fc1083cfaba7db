import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Serves a route at its /v1 path and at its deprecated unversioned alias (`/fx/...`, `/ledger/...`),
 * the alias answering with `Deprecation: true` and a `Link` to its successor.
 */
export function routeWithLegacyAlias(app: FastifyInstance, route: RouteOptions): void {
  app.route(route);
  const aliasUrl = route.url.replace(/^\/v1\//, '/');
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  app.route({
    ...route,
    url: aliasUrl,
    schema: { ...schema, deprecated: true, summary: `${String(schema.summary ?? '')} (deprecated alias of ${route.url})` },
    onSend: async (req, reply, payload) => {
      const successor = req.url.replace(/^\/(?!v1\/)/, '/v1/');
      reply.header('deprecation', 'true');
      reply.header('link', `<${successor}>; rel="successor-version"`);
      return payload;
    },
  });
}
