"""What every call goes through (as packages/sdk/src/transport.ts): the cached OAuth2 token, the
Idempotency-Key of a POST, and the spec's Retry rules with exponential backoff and full jitter."""

import http.client
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import CorridorError, error_from_response, network_error


def new_idempotency_key() -> str:
    """A random Idempotency-Key (a UUID v4)."""
    return str(uuid.uuid4())


class Response:
    """A successful answer: its status, headers (lower-case names) and body text."""

    def __init__(self, status: int, headers: Dict[str, str], text: str) -> None:
        self.status = status
        self.headers = headers
        self.text = text

    @property
    def request_id(self) -> Optional[str]:
        """The ``x-request-id`` the server answered with: quote it to support."""
        return self.headers.get("x-request-id")

    @property
    def idempotent_replayed(self) -> bool:
        """Whether the answer was replayed for a repeated Idempotency-Key."""
        return self.headers.get("idempotent-replayed") == "true"

    def json(self) -> Any:
        return json.loads(self.text) if self.text else None


def _lower_headers(message: Any) -> Dict[str, str]:
    return {k.lower(): v for k, v in message.items()} if message is not None else {}


class Transport:
    """One credential's connection to Corridor.

    The token is cached and renewed ``token_renew_before`` seconds before it expires (a short-lived one
    at half its life), one renewal shared by concurrent threads. A POST carries an Idempotency-Key,
    generated once per call unless given, and the same key on each of its retries. Retried: network
    errors and answers whose ``retryable`` is true; without problem details only 429, 502, 503 and 504
    (spec, Retry rules); at most ``max_retries`` times after the first attempt, waiting a random time
    up to ``retry_base_delay * 2**retry`` (at most ``retry_max_delay``), and never less than
    ``Retry-After`` (a ``Retry-After`` longer than ``retry_after_max`` is not waited for: the error
    is raised).
    """

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        audience: str = "corridor-api",
        token_url: Optional[str] = None,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 20.0,
        retry_after_max: float = 60.0,
        token_renew_before: float = 60.0,
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self._client_secret = client_secret
        self.audience = audience
        self.token_url = token_url or f"{self.base_url}/oauth/token"
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.retry_after_max = retry_after_max
        self.token_renew_before = token_renew_before
        self.timeout = timeout
        self._sleep = sleep
        self._token: Optional[Tuple[str, float]] = None  # (value, when to renew it on time.monotonic())
        self._token_lock = threading.Lock()

    # -- token -------------------------------------------------------------------------------

    def access_token(self) -> str:
        """The current access token: the cached one, or a new one (one renewal for every waiting thread)."""
        token = self._token
        if token is not None and time.monotonic() < token[1]:
            return token[0]
        with self._token_lock:
            token = self._token
            if token is not None and time.monotonic() < token[1]:
                return token[0]
            return self._request_token()

    def drop_token(self, value: Optional[str] = None) -> None:
        """Forgets the cached token ``value`` (it was refused: revoked, or the server's keys changed)."""
        token = self._token
        if token is not None and (value is None or token[0] == value):
            self._token = None

    def _request_token(self) -> str:
        body = json.dumps({"grant_type": "client_credentials", "client_id": self.client_id, "client_secret": self._client_secret, "audience": self.audience}).encode("utf-8")
        started = time.monotonic()
        res = self._with_retries(lambda: self._send("POST", self.token_url, {"content-type": "application/json", "accept": "application/json"}, body))
        answer = res.json()
        lifetime = float(answer["expires_in"])
        # Renewed shortly before it expires; a short-lived token is renewed at half its life.
        self._token = (answer["access_token"], started + max(lifetime / 2, lifetime - self.token_renew_before))
        return answer["access_token"]

    # -- requests ----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        account_id: Optional[str] = None,
    ) -> Response:
        """One logical call: the answer of a success, or the CorridorError of the last attempt."""
        method = method.upper()
        url = self.url(path, query)
        key = (idempotency_key or new_idempotency_key()) if method == "POST" else None
        data = None if body is None else json.dumps(body).encode("utf-8")
        token_retried = False
        while True:
            token = self.access_token()
            sent: Dict[str, str] = {"accept": "application/json", "authorization": f"Bearer {token}"}
            sent.update({k.lower(): v for k, v in (headers or {}).items()})
            if account_id:
                sent["service-account-id"] = account_id
            if key:
                sent["idempotency-key"] = key
            if data is not None:
                sent["content-type"] = "application/json"
            try:
                return self._with_retries(lambda: self._send(method, url, sent, data))
            except CorridorError as err:
                # A token refused once (revoked, keys rotated) is renewed and the call sent once more.
                if err.status == 401 and not token_retried:
                    token_retried = True
                    self.drop_token(token)
                    continue
                raise

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        pairs = []
        for k, v in (query or {}).items():
            if v is None:
                continue
            if isinstance(v, (list, tuple)):
                v = ",".join(str(x) for x in v)
            elif isinstance(v, bool):
                v = "true" if v else "false"
            pairs.append((k, str(v)))
        return self.base_url + path + (f"?{urllib.parse.urlencode(pairs)}" if pairs else "")

    def _send(self, method: str, url: str, headers: Mapping[str, str], data: Optional[bytes]) -> Response:
        """One attempt. A refusal is raised as CorridorError; no answer at all as network_error."""
        req = urllib.request.Request(url, data=data, method=method, headers=dict(headers))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return Response(res.status, _lower_headers(res.headers), res.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            with err:
                text = err.read().decode("utf-8", errors="replace")
            raise error_from_response(err.code, _lower_headers(err.headers), text) from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError, OSError) as err:
            raise network_error(err) from err

    def _with_retries(self, attempt: Callable[[], Response]) -> Response:
        retry = 0
        while True:
            try:
                return attempt()
            except CorridorError as error:
                if not error.retryable or retry >= self.max_retries:
                    raise
                delay = self.delay(retry, error)
                if delay is None:
                    raise
                self._sleep(delay)
                retry += 1

    def delay(self, retry: int, error: CorridorError) -> Optional[float]:
        """Exponential backoff with full jitter, never shorter than Retry-After; None when Retry-After is too long to wait."""
        backoff = random.random() * min(self.retry_max_delay, self.retry_base_delay * 2**retry)
        if error.retry_after is None:
            return backoff
        if error.retry_after > self.retry_after_max:
            return None
        return max(error.retry_after, backoff)
