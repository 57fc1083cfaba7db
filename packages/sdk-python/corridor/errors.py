"""CorridorError: every refusal the SDK raises, whatever the body's shape (as packages/sdk/src/errors.ts)."""

import email.utils
import json
import re
import time
from typing import Any, Dict, List, Mapping, Optional

#: Statuses retried on endpoints that answer without problem details (spec, Retry rules 2).
RETRYABLE_LEGACY_STATUSES = frozenset({429, 502, 503, 504})

_STABLE_CODE = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
_OAUTH_CODE = re.compile(r"^[a-z_]+$")


class CorridorError(Exception):
    """A refusal: the legacy envelope, the validation envelope, RFC 9457 problem details, an OAuth
    token error, or no answer at all (``status`` 0, ``shape`` ``"network"``).

    Branch on ``code``, never on the message.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: Optional[str] = None,
        details: Optional[List[Dict[str, Any]]] = None,
        request_id: Optional[str] = None,
        retryable: bool = False,
        shape: str = "legacy",
        retry_after: Optional[float] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        #: HTTP status; 0 when the request got no answer (network error).
        self.status = status
        self.message = message
        #: Stable machine-readable code (problem ``code``, legacy ``code`` or a code-like ``message``, OAuth ``error``).
        self.code = code
        #: Failing fields of a validation error: ``{"field", "message", "code"?, "value"?}``.
        self.details: List[Dict[str, Any]] = details or []
        #: ``x-request-id`` of the answer (or ``request_id`` of problem details): quote it to support.
        self.request_id = request_id
        #: Whether the same request may succeed if sent again.
        self.retryable = retryable
        #: ``problem``, ``validation``, ``legacy``, ``oauth`` or ``network``.
        self.shape = shape
        #: Seconds to wait before retrying, from ``Retry-After``.
        self.retry_after = retry_after
        #: The parsed body as received.
        self.body = body

    def __repr__(self) -> str:
        return f"CorridorError(status={self.status}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at is None:
        return None
    return max(0.0, float(int(at.timestamp() - (time.time() if now is None else now) + 0.999)))


def _field_errors(items: Any) -> List[Dict[str, Any]]:
    if not isinstance(items, list):
        return []
    out = []
    for d in items:
        if not isinstance(d, dict):
            continue
        entry: Dict[str, Any] = {"field": d.get("field") if isinstance(d.get("field"), str) else "", "message": d.get("message") if isinstance(d.get("message"), str) else ""}
        if isinstance(d.get("code"), str) and d["code"]:
            entry["code"] = d["code"]
        if "value" in d:
            entry["value"] = d["value"]
        out.append(entry)
    return out


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def error_from_response(status: int, headers: Mapping[str, str], text: str) -> CorridorError:
    """The error for an answer that is not a success, from its status, headers (lower-case names) and body text."""
    body: Any = text
    try:
        body = json.loads(text) if text else None
    except ValueError:
        pass  # not JSON: kept as text
    retry_after = parse_retry_after(headers.get("retry-after"))
    header_request_id = headers.get("x-request-id")
    content_type = headers.get("content-type") or ""
    legacy_retryable = status in RETRYABLE_LEGACY_STATUSES
    if isinstance(body, dict) and (content_type.startswith("application/problem+json") or ("retryable" in body and "detail" in body)):
        return CorridorError(
            status,
            _str(body.get("detail")) or _str(body.get("title")) or f"HTTP {status}",
            code=_str(body.get("code")),
            details=_field_errors(body.get("errors")),
            request_id=_str(body.get("request_id")) or header_request_id,
            retryable=body.get("retryable") is True,
            shape="problem",
            retry_after=retry_after,
            body=body,
        )
    if isinstance(body, dict) and isinstance(body.get("error"), str) and _OAUTH_CODE.match(body["error"]):
        return CorridorError(
            status,
            _str(body.get("error_description")) or body["error"],
            code=body["error"],
            request_id=header_request_id,
            retryable=legacy_retryable,
            shape="oauth",
            retry_after=retry_after,
            body=body,
        )
    if isinstance(body, dict):
        message = _str(body.get("message")) or f"HTTP {status}"
        return CorridorError(
            status,
            message,
            code=_str(body.get("code")) or (message if _STABLE_CODE.match(message) else None),
            details=_field_errors(body.get("details")),
            request_id=header_request_id,
            retryable=legacy_retryable,
            shape="validation" if isinstance(body.get("details"), list) else "legacy",
            retry_after=retry_after,
            body=body,
        )
    return CorridorError(status, f"HTTP {status}", request_id=header_request_id, retryable=legacy_retryable, shape="legacy", retry_after=retry_after, body=body)


def network_error(cause: BaseException) -> CorridorError:
    """The error for a request that got no answer (connection refused or reset, timeout). Retryable by rule 1."""
    err = CorridorError(0, f"Network error: {cause}", code="NETWORK_ERROR", retryable=True, shape="network")
    err.__cause__ = cause
    return err
