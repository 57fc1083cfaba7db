"""Corridor's Python SDK: the standard library only (Python 3.9+).

>>> from corridor import Corridor, CorridorError
>>> corridor = Corridor("http://127.0.0.1:8080", client_id, client_secret)
>>> payout = corridor.payouts.create({...})
"""

from . import models
from .client import Corridor
from .errors import RETRYABLE_LEGACY_STATUSES, CorridorError, parse_retry_after
from .pagination import CorridorObject, Page
from .transport import Response, Transport, new_idempotency_key
from .webhooks import WebhookVerificationError, construct_event, sign_webhook, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "Corridor",
    "CorridorError",
    "CorridorObject",
    "Page",
    "RETRYABLE_LEGACY_STATUSES",
    "Response",
    "Transport",
    "WebhookVerificationError",
    "construct_event",
    "models",
    "new_idempotency_key",
    "parse_retry_after",
    "sign_webhook",
    "verify_webhook",
]
