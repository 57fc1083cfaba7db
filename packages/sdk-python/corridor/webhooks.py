"""Webhook verification, exactly as packages/sdk/src/webhooks.ts does it."""

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Union

_HEX_SIGNATURE = re.compile(r"^[0-9a-fA-F]{64}$")
_TIMESTAMP = re.compile(r"^\d{1,12}$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")

Body = Union[str, bytes]


class WebhookVerificationError(Exception):
    """A delivery whose signature or timestamp does not verify: not from Corridor, altered, or replayed late."""

    def __init__(self) -> None:
        super().__init__("The webhook signature or timestamp does not verify")


def _bytes(body: Body) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    """A header of any case from a mapping (a dict, ``http.client.HTTPMessage``, a framework's headers)."""
    getter = getattr(headers, "get", None)
    value = getter(name) if getter is not None else None
    if value is None:
        for key in headers.keys():
            if key.lower() == name:
                value = headers[key]
                break
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return value if isinstance(value, str) else None


def sign_webhook(secret: str, timestamp: Union[int, str], raw_body: Body) -> str:
    """hex(HMAC-SHA256(key = the whole ``whsec_…`` secret, message = ``<timestamp>.<raw body>``)), as Corridor signs deliveries."""
    return hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode("utf-8") + _bytes(raw_body), hashlib.sha256).hexdigest()


def _standard_signature(secret: str, message_id: str, timestamp: str, body: bytes) -> Optional[bytes]:
    """Standard Webhooks' ``v1``: HMAC-SHA256 keyed by the base64 after ``whsec_``, over ``<id>.<timestamp>.<body>``."""
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None  # a secret that is not base64 after its prefix signs no v1
    return hmac.new(key, f"{message_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()


def verify_webhook(raw_body: Body, headers: Mapping[str, Any], secret: str, tolerance: int = 300) -> bool:
    """Verifies a Corridor webhook delivery before trusting it.

    True when the timestamp is within ``tolerance`` seconds of this clock and, under ``secret``, either
    ``X-Service-Signature`` is the HMAC of ``<X-Service-Timestamp>.<raw_body>`` (the spec's signature)
    or one ``v1`` signature of the Standard Webhooks ``webhook-signature`` header is (during a secret
    rotation's grace a delivery carries one per secret, so the previous secret still verifies);
    compared in constant time. ``raw_body`` is the body exactly as received, before any JSON parsing.
    Deduplicate by event ``id``.
    """
    body = _bytes(raw_body)
    now = int(time.time())

    def fresh(timestamp: Optional[str]) -> bool:
        return timestamp is not None and _TIMESTAMP.match(timestamp) is not None and abs(now - int(timestamp)) <= tolerance

    signature = _header(headers, "x-service-signature")
    timestamp = _header(headers, "x-service-timestamp")
    if signature and _HEX_SIGNATURE.match(signature) and fresh(timestamp):
        if hmac.compare_digest(sign_webhook(secret, timestamp or "", body), signature.lower()):
            return True
    message_id = _header(headers, "webhook-id")
    standard_timestamp = _header(headers, "webhook-timestamp")
    standard = _header(headers, "webhook-signature")
    if not message_id or not standard or not fresh(standard_timestamp):
        return False
    expected = _standard_signature(secret, message_id, standard_timestamp or "", body)
    if expected is None:
        return False
    for entry in standard.split(" "):
        version, _, value = entry.partition(",")
        if version != "v1" or not value or not _BASE64.match(value):
            continue
        try:
            candidate = base64.b64decode(value)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(expected, candidate):
            return True
    return False


def construct_event(raw_body: Body, headers: Mapping[str, Any], secret: str, tolerance: int = 300) -> Any:
    """Verifies a delivery (as verify_webhook) and returns its parsed event; raises WebhookVerificationError."""
    if not verify_webhook(raw_body, headers, secret, tolerance):
        raise WebhookVerificationError()
    return json.loads(_bytes(raw_body).decode("utf-8"))
