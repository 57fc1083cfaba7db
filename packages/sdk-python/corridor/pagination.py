"""Cursor pages (``{object, data, hasMore, nextCursor}``) and iteration over every item of a list."""

from typing import Any, Callable, Dict, Iterator, Optional, Set

from .transport import Response


class CorridorObject(dict):  # type: ignore[type-arg]
    """An object answer: the JSON object as a dict, with ``last_response`` (request id, status, headers)."""

    last_response: Optional[Response] = None


class Page(CorridorObject):
    """One page of a list. ``page["data"]`` is this page's items; ``auto_paging_iter()`` yields every
    item of this page and of the pages after it (the next page is fetched when this one is used up)."""

    def __init__(self, value: Dict[str, Any], fetch_page: Callable[[Optional[str]], "Page"]) -> None:
        super().__init__(value)
        self._fetch_page = fetch_page

    def auto_paging_iter(self) -> Iterator[Any]:
        """Every item, page after page; bounded by the server's ``hasMore`` (a repeated cursor ends it)."""
        page: Page = self
        seen: Set[str] = set()
        while True:
            yield from page.get("data") or []
            cursor = page.get("nextCursor")
            if not page.get("hasMore") or cursor is None or cursor in seen:
                return
            seen.add(cursor)
            page = self._fetch_page(cursor)
