import type { paths } from './generated/openapi.js';
import type { HttpMethod, RequestOptions } from './transport.js';

/**
 * Types of one endpoint, read from the generated OpenAPI types: its path parameters, query, JSON
 * body and success answer. The method groups are tables of endpoints (client.ts); these types turn
 * each entry into a typed method.
 */
export type Path = keyof paths;

/** The methods a path has in the OpenAPI document. */
export type MethodsOf<P extends Path> = { [M in HttpMethod]: [NonNullable<paths[P][M]>] extends [never] ? never : M }[HttpMethod];

export type Operation<P extends Path, M extends HttpMethod> = NonNullable<paths[P][M]>;

type JsonContent<R> = R extends { content: { 'application/json': infer T } } ? T : R extends { content?: never } ? void : unknown;
type SuccessStatus = 200 | 201 | 202 | 204;

export type ResponseOf<O> = O extends { responses: infer R } ? JsonContent<R[Extract<keyof R, SuccessStatus>]> : never;
export type PathParamsOf<O> = O extends { parameters: { path: infer PP } } ? PP : never;
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
export type BodyOf<O> = O extends { requestBody?: infer RB }
  ? [NonNullable<RB>] extends [never]
    ? never
    : NonNullable<RB> extends { content: { 'application/json': infer B } }
      ? B
      : never
  : never;

type Has<T> = [T] extends [never] ? false : true;

/**
 * A method's arguments: path parameters first when the path has any (`{ id }`), then the JSON body
 * (POST, PUT, PATCH with one) or the query, then per-call options (Idempotency-Key, headers, signal).
 */
export type ArgsOf<O> =
  Has<PathParamsOf<O>> extends true
    ? Has<BodyOf<O>> extends true
      ? BodyRequired<O> extends true
        ? [params: PathParamsOf<O>, body: BodyOf<O>, options?: RequestOptions]
        : [params: PathParamsOf<O>, body?: BodyOf<O>, options?: RequestOptions]
      : [params: PathParamsOf<O>, query?: QueryOf<O>, options?: RequestOptions]
    : Has<BodyOf<O>> extends true
      ? BodyRequired<O> extends true
        ? [body: BodyOf<O>, options?: RequestOptions]
        : [body?: BodyOf<O>, options?: RequestOptions]
      : [query?: QueryOf<O>, options?: RequestOptions];

/** Whether the document marks the body required (a body whose fields are all optional may be left out). */
type BodyRequired<O> = O extends { requestBody: unknown } ? (Partial<Pick<O, 'requestBody'>> extends Pick<O, 'requestBody'> ? false : true) : false;

export interface Endpoint<P extends Path = Path, M extends HttpMethod = HttpMethod> {
  readonly kind: 'endpoint';
  readonly method: M;
  readonly path: P;
  /** A cursor-paged list: its method's result can also be iterated with `for await`. */
  readonly paged: boolean;
}

/** One endpoint of a method group. */
export function endpoint<P extends Path, M extends MethodsOf<P>>(method: M, path: P): Endpoint<P, M> {
  return { kind: 'endpoint', method, path, paged: false };
}

/** A cursor-paged list endpoint (`{data, hasMore, nextCursor}`). */
export function paged<P extends Path, M extends MethodsOf<P>>(method: M, path: P): Endpoint<P, M> & { readonly paged: true } {
  return { kind: 'endpoint', method, path, paged: true };
}

/** A table of endpoints and nested tables (fx.quotes, applications.persons). */
export interface GroupTable {
  readonly [name: string]: Endpoint | GroupTable;
}
