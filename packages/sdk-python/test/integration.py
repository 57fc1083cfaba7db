"""The Python SDK against a live Corridor, run by python-sdk.test.ts (which checks what it prints).

``python3 integration.py api``: token, sandbox funding, beneficiaries (the first through a 503),
a payout whose first answer is lost, a paged list, a 404, a webhook endpoint and its test delivery.
``python3 integration.py verify`` (a delivery as JSON on stdin): the delivery verified, altered ones refused.
Environment: CORRIDOR_BASE_URL, CORRIDOR_CLIENT_ID, CORRIDOR_CLIENT_SECRET, WEBHOOK_URL, RUN.
"""

import json
import os
import sys
import time

from corridor import Corridor, CorridorError, WebhookVerificationError, models

ADA: models.CreateBeneficiaryRequest = {
    "type": "individual",
    "name": "Ada Lovelace",
    "country": "DE",
    "address": "1 Hauptstrasse",
    "city": "Berlin",
    "postcode": "10115",
    "accounts": [{"type": "iban", "currency": "EUR", "data": {"iban": "DE89370400440532013000"}}],
}


def api() -> dict:
    run = os.environ["RUN"]
    corridor = Corridor(os.environ["CORRIDOR_BASE_URL"], os.environ["CORRIDOR_CLIENT_ID"], os.environ["CORRIDOR_CLIENT_SECRET"], retry_base_delay=0.05)
    out: dict = {"token": corridor.access_token()}
    out["sameToken"] = corridor.access_token() == out["token"]

    corridor.sandbox.fund_balance({"currency": "EUR", "amount": "1000.00"})
    # The first answer for this beneficiary is a 503 without problem details: retried with the same key.
    first = corridor.beneficiaries.create({**ADA, "name": "Ada Lovelace"}, headers={"x-test-fault": f"503-{run}"})
    names = ["Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov"]
    created = [first["id"]] + [corridor.beneficiaries.create({**ADA, "name": n})["id"] for n in names]
    out["beneficiaries"] = created
    out["beneficiaryRequestId"] = first.last_response.request_id if first.last_response else None

    # The first answer of this payout never arrives (the connection is cut after the server decided it).
    payout: models.Payout = corridor.payouts.create(
        {"clientRef": f"py-{run}", "amount": "10.00", "currency": "EUR", "beneficiary": {"id": first["id"]}},
        headers={"x-test-fault": f"drop-{run}"},
    )
    out["payout"] = {"id": payout["id"], "status": payout["status"], "amount": payout["amount"], "clientRef": payout["clientRef"]}
    out["payoutsWithRef"] = [p["id"] for p in corridor.payouts.list(clientRef=f"py-{run}")["data"]]

    page = corridor.beneficiaries.list(limit=2)
    out["firstPage"] = {"size": len(page["data"]), "hasMore": page["hasMore"]}
    out["listed"] = [b["id"] for b in page.auto_paging_iter()]

    try:
        corridor.payouts.get("00000000-0000-4000-8000-000000000000")
        out["notFound"] = None
    except CorridorError as err:
        out["notFound"] = {"status": err.status, "code": err.code, "requestId": err.request_id, "retryable": err.retryable, "isException": isinstance(err, Exception)}

    endpoint = corridor.webhooks.create({"url": os.environ["WEBHOOK_URL"], "events": ["payout.paid"]})
    corridor.webhooks.test(endpoint["id"])
    out["webhookSecret"] = endpoint["secret"]
    return out


def verify() -> dict:
    delivery = json.load(sys.stdin)
    body, headers, secret = delivery["body"], delivery["headers"], delivery["secret"]
    corridor = Corridor("http://127.0.0.1:9", "unused", "unused")
    old = str(int(time.time()) - 301)
    out = {
        "verified": corridor.webhooks.verify(body, headers, secret),
        "asBytes": corridor.webhooks.verify(body.encode("utf-8"), headers, secret),
        "eventType": corridor.webhooks.construct_event(body, headers, secret)["type"],
        "tamperedBody": corridor.webhooks.verify(body.replace('"type":"', '"type":"x', 1), headers, secret),
        "wrongSecret": corridor.webhooks.verify(body, headers, secret + "x"),
        "oldTimestamp": corridor.webhooks.verify(body, {**headers, "x-service-timestamp": old, "webhook-timestamp": old}, secret),
        "onlyStandardHeaders": corridor.webhooks.verify(body, {k: v for k, v in headers.items() if not k.lower().startswith("x-service-")}, secret),
        "onlySpecHeaders": corridor.webhooks.verify(body, {k: v for k, v in headers.items() if not k.lower().startswith("webhook-")}, secret),
    }
    try:
        corridor.webhooks.construct_event(body + " ", headers, secret)
        out["constructTampered"] = "accepted"
    except WebhookVerificationError:
        out["constructTampered"] = "refused"
    return out


if __name__ == "__main__":
    print(json.dumps(api() if sys.argv[1] == "api" else verify()))
