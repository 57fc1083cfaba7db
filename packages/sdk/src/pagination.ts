/** A page of any list: `{object, data, hasMore, nextCursor}`. */
export interface CursorPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export type ItemOf<P> = P extends { data: (infer T)[] } ? T : never;

/** Pages fetched one after another; bounded by the server's `hasMore` (a repeated cursor ends it). */
export async function* iteratePages<P extends CursorPage<unknown>>(fetchPage: (cursor: string | undefined) => Promise<P>): AsyncGenerator<ItemOf<P>, void, undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    for (const item of page.data) yield item as ItemOf<P>;
    if (!page.hasMore || page.nextCursor === null || seen.has(page.nextCursor)) return;
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

/**
 * The result of a list method: `await` it for the first page, or `for await` over it for every item
 * of every page (the next page is fetched when the previous one is used up).
 */
export class PagedCall<P extends CursorPage<unknown>> implements PromiseLike<P>, AsyncIterable<ItemOf<P>> {
  private first: Promise<P> | undefined;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<P>) {}

  then<A = P, B = never>(onFulfilled?: ((page: P) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.first ??= this.fetchPage(undefined);
    return this.first.then(onFulfilled, onRejected);
  }

  [Symbol.asyncIterator](): AsyncIterator<ItemOf<P>> {
    return iteratePages(this.fetchPage)[Symbol.asyncIterator]();
  }
}
