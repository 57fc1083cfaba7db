"""Corridor: a client of one credential, a method group per resource (as packages/sdk/src/client.ts)."""

import urllib.parse
from typing import Any, Dict, Iterator, Mapping, Optional, cast

from . import models
from .pagination import CorridorObject, Page
from .transport import Transport
from .webhooks import construct_event, verify_webhook

Body = Mapping[str, Any]


def _path(template: str, *params: str) -> str:
    """Fills the ``{name}`` segments of a path, in order, each URL-encoded."""
    parts = template.split("{")
    if len(parts) - 1 != len(params):
        raise TypeError(f"{template} takes {len(parts) - 1} path parameter(s)")
    out = parts[0]
    for value, rest in zip(params, parts[1:]):
        if not value:
            raise TypeError(f"missing path parameter for {template}")
        out += urllib.parse.quote(str(value), safe="") + rest.split("}", 1)[1]
    return out


class _Group:
    def __init__(self, client: "Corridor") -> None:
        self._client = client

    def _get(self, path: str, query: Optional[Mapping[str, Any]] = None) -> Any:
        return self._client.request("GET", path, query=query)

    def _post(self, path: str, body: Any = None, idempotency_key: Optional[str] = None, headers: Optional[Mapping[str, str]] = None) -> Any:
        return self._client.request("POST", path, body={} if body is None else body, idempotency_key=idempotency_key, headers=headers)

    def _list(self, path: str, query: Mapping[str, Any]) -> Page:
        return self._client.list(path, query)


class Payouts(_Group):
    def create(self, body: "models.CreatePayoutRequest", *, idempotency_key: Optional[str] = None, headers: Optional[Mapping[str, str]] = None) -> "models.Payout":
        """One payout (201). Retried with the same Idempotency-Key after a lost answer; never a second payout."""
        return cast("models.Payout", self._post("/v1/payouts", body, idempotency_key, headers))

    def get(self, payout_id: str) -> "models.Payout":
        return cast("models.Payout", self._get(_path("/v1/payouts/{id}", payout_id)))

    def list(self, **query: Any) -> Page:
        """A page of payouts (``limit``, ``cursor``, ``status``, ``clientRef``…); ``.auto_paging_iter()`` for every one."""
        return self._list("/v1/payouts", query)

    def cancel(self, payout_id: str, *, idempotency_key: Optional[str] = None) -> "models.Payout":
        return cast("models.Payout", self._post(_path("/v1/payouts/{id}/cancel", payout_id), None, idempotency_key))


class Beneficiaries(_Group):
    def create(self, body: "models.CreateBeneficiaryRequest", *, idempotency_key: Optional[str] = None, headers: Optional[Mapping[str, str]] = None) -> "models.Beneficiary":
        return cast("models.Beneficiary", self._post("/v1/beneficiaries", body, idempotency_key, headers))

    def get(self, beneficiary_id: str) -> "models.Beneficiary":
        return cast("models.Beneficiary", self._get(_path("/v1/beneficiaries/{id}", beneficiary_id)))

    def list(self, **query: Any) -> Page:
        return self._list("/v1/beneficiaries", query)

    def delete(self, beneficiary_id: str) -> Any:
        return self._client.request("DELETE", _path("/v1/beneficiaries/{id}", beneficiary_id))


class Quotes(_Group):
    def create(self, body: "models.CreateFxQuoteRequest", *, idempotency_key: Optional[str] = None) -> "models.FxQuote":
        return cast("models.FxQuote", self._post("/v1/fx/quotes", body, idempotency_key))

    def get(self, quote_id: str) -> "models.FxQuote":
        return cast("models.FxQuote", self._get(_path("/v1/fx/quotes/{id}", quote_id)))


class Fx(_Group):
    def __init__(self, client: "Corridor") -> None:
        super().__init__(client)
        self.quotes = Quotes(client)

    def rates(self, **query: Any) -> Any:
        return self._get("/v1/fx/rates", query)


class Events(_Group):
    def get(self, event_id: str) -> "models.Event":
        return cast("models.Event", self._get(_path("/v1/events/{id}", event_id)))

    def list(self, **query: Any) -> Page:
        return self._list("/v1/events", query)


class Deliveries(_Group):
    def list(self, webhook_id: str, **query: Any) -> Page:
        return self._list(_path("/v1/webhooks/{id}/deliveries", webhook_id), query)

    def resend(self, webhook_id: str, delivery_id: str, *, idempotency_key: Optional[str] = None) -> Any:
        return self._post(_path("/v1/webhooks/{id}/deliveries/{deliveryId}/resend", webhook_id, delivery_id), None, idempotency_key)


class Webhooks(_Group):
    """Webhook endpoints, and the verification of what they receive (``verify``, ``construct_event``)."""

    def __init__(self, client: "Corridor") -> None:
        super().__init__(client)
        self.deliveries = Deliveries(client)

    def create(self, body: "models.CreateWebhookRequest", *, idempotency_key: Optional[str] = None) -> Any:
        """A new endpoint; its ``secret`` (``whsec_…``) is in this answer only."""
        return self._post("/v1/webhooks", body, idempotency_key)

    def get(self, webhook_id: str) -> Any:
        return self._get(_path("/v1/webhooks/{id}", webhook_id))

    def list(self, **query: Any) -> Page:
        return self._list("/v1/webhooks", query)

    def delete(self, webhook_id: str) -> Any:
        return self._client.request("DELETE", _path("/v1/webhooks/{id}", webhook_id))

    def rotate_secret(self, webhook_id: str, *, idempotency_key: Optional[str] = None) -> Any:
        return self._post(_path("/v1/webhooks/{id}/rotate-secret", webhook_id), None, idempotency_key)

    def test(self, webhook_id: str, *, idempotency_key: Optional[str] = None) -> Any:
        """Sends the endpoint a ``webhook.test`` delivery."""
        return self._post(_path("/v1/webhooks/{id}/test", webhook_id), None, idempotency_key)

    @staticmethod
    def verify(raw_body: Any, headers: Mapping[str, Any], secret: str, tolerance: int = 300) -> bool:
        """See corridor.verify_webhook."""
        return verify_webhook(raw_body, headers, secret, tolerance)

    @staticmethod
    def construct_event(raw_body: Any, headers: Mapping[str, Any], secret: str, tolerance: int = 300) -> "models.Event":
        """The verified delivery's event; raises WebhookVerificationError."""
        return cast("models.Event", construct_event(raw_body, headers, secret, tolerance))


class Accounts(_Group):
    def current(self) -> "models.Account":
        return cast("models.Account", self._get("/v1/account"))

    def create(self, body: "models.CreateAccountRequest", *, idempotency_key: Optional[str] = None) -> "models.Account":
        return cast("models.Account", self._post("/v1/accounts", body, idempotency_key))

    def get(self, account_id: str) -> "models.Account":
        return cast("models.Account", self._get(_path("/v1/accounts/{id}", account_id)))

    def list(self, **query: Any) -> Page:
        return self._list("/v1/accounts", query)


class Balances(_Group):
    def get(self) -> Any:
        return self._get("/v1/ledger/balances")


class SandboxPayouts(_Group):
    def process(self, payout_id: str) -> Any:
        return self._post(_path("/v1/sandbox/payouts/{id}/process", payout_id))

    def pay(self, payout_id: str) -> Any:
        return self._post(_path("/v1/sandbox/payouts/{id}/pay", payout_id))

    def fail(self, payout_id: str, body: Optional[Body] = None) -> Any:
        return self._post(_path("/v1/sandbox/payouts/{id}/fail", payout_id), body)


class Sandbox(_Group):
    """Sandbox only: money in, and payouts moved along."""

    def __init__(self, client: "Corridor") -> None:
        super().__init__(client)
        self.payouts = SandboxPayouts(client)

    def fund_balance(self, body: Body, *, idempotency_key: Optional[str] = None) -> Any:
        return self._post("/v1/sandbox/balances/fund", body, idempotency_key)


class Corridor:
    """A client of one Corridor credential.

    ``Corridor(base_url, client_id, client_secret)``; options as ``Transport`` takes them
    (``audience``, ``max_retries``, ``retry_base_delay``, ``token_renew_before``, ``timeout``…).
    Every object answer is a dict (typed as ``corridor.models`` has it) with ``last_response``.
    Endpoints without a method here: ``request(method, path, query=..., body=...)`` and ``list(path, query)``.
    """

    def __init__(self, base_url: str = "", client_id: str = "", client_secret: str = "", *, transport: Optional[Transport] = None, account_id: Optional[str] = None, **options: Any) -> None:
        self.transport = transport or Transport(base_url, client_id, client_secret, **options)
        #: The sub-account addressed (``Service-Account-Id``), or None for the master account.
        self.account_id = account_id
        self.payouts = Payouts(self)
        self.beneficiaries = Beneficiaries(self)
        self.fx = Fx(self)
        self.events = Events(self)
        self.webhooks = Webhooks(self)
        self.accounts = Accounts(self)
        self.balances = Balances(self)
        self.sandbox = Sandbox(self)

    def with_account(self, account_id: str) -> "Corridor":
        """The same credential (and cached token) addressing a sub-account."""
        return Corridor(transport=self.transport, account_id=account_id)

    def access_token(self) -> str:
        return self.transport.access_token()

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Any endpoint: the parsed answer (a CorridorObject for an object), None for 204."""
        res = self.transport.request(method, path, query=query, body=body, idempotency_key=idempotency_key, headers=headers, account_id=self.account_id)
        value = res.json()
        if isinstance(value, dict):
            obj = CorridorObject(value)
            obj.last_response = res
            return obj
        return value

    def list(self, path: str, query: Optional[Mapping[str, Any]] = None) -> Page:
        """The first page of a list endpoint; ``.auto_paging_iter()`` on it for every item."""
        base: Dict[str, Any] = dict(query or {})

        def fetch(cursor: Optional[str]) -> Page:
            res = self.transport.request("GET", path, query=base if cursor is None else {**base, "cursor": cursor}, account_id=self.account_id)
            page = Page(res.json(), fetch)
            page.last_response = res
            return page

        return fetch(None)

    def paginate(self, path: str, query: Optional[Mapping[str, Any]] = None) -> Iterator[Any]:
        """Every item of a list endpoint, page after page."""
        return self.list(path, query).auto_paging_iter()
