import type { Static, TSchema } from 'typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchema,
  FastifyTypeProvider,
  HTTPMethods,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteOptions,
  RouteShorthandOptions,
} from 'fastify';

type Server = RawServerDefault;
type Req = RawRequestDefaultExpression;
type Rep = RawReplyDefaultExpression;

/**
 * @fastify/type-provider-typebox's TypeBoxTypeProvider for requests only: params, query, headers and body are typed from
 * their TypeBox schemas; replies stay untyped as without a provider. (With the replies typed too, the services' views
 * would have to name each enum their response schema lists; Fastify checks replies against the schemas at run time.)
 */
export interface TypeBoxRequestTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}

/** The Fastify instance module routes register on: a request's params, query and body are typed from the route's TypeBox schemas (types only; Ajv still validates). */
export type App = FastifyInstance<Server, Req, Rep, FastifyBaseLogger, TypeBoxRequestTypeProvider>;

/** A route handler, its request typed from the schema `S` it is declared with. */
export type Handler<S extends FastifySchema> = RouteHandlerMethod<Server, Req, Rep, RouteGenericInterface, ContextConfigDefault, S, TypeBoxRequestTypeProvider>;

/** One route: method, URL, options (config, schema) and handler, ready for `app.route`. */
export type Route<S extends FastifySchema = FastifySchema> = RouteOptions<Server, Req, Rep, RouteGenericInterface, ContextConfigDefault, S, TypeBoxRequestTypeProvider>;

type Options<S extends FastifySchema> = Omit<RouteShorthandOptions<Server, Req, Rep, RouteGenericInterface, ContextConfigDefault, S, TypeBoxRequestTypeProvider>, 'schema'> & { schema: S };

function define(method: HTTPMethods) {
  return <S extends FastifySchema>(url: string, options: Options<S>, handler: Handler<S>): Route<S> => ({ ...options, method, url, handler });
}

/**
 * Declares a route whose handler's request is typed from its schema; the same route `app.get(url, options, handler)` would register.
 * A module names each route (a function returning one of these) and its registration function lists them: `app.route(getApplication(ctx))`.
 */
export const route = { get: define('GET'), post: define('POST'), put: define('PUT'), patch: define('PATCH'), delete: define('DELETE') };
