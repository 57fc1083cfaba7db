"""The SDK's parts that need no server: error shapes, Retry-After, backoff, webhook signatures, paths.

Run, in packages/sdk-python: ``python3 -m unittest discover -s tests``
(also run by packages/sdk-python/test/python-sdk.test.ts).
"""

import base64
import hashlib
import hmac
import json
import threading
import time
import unittest

from corridor import CorridorError, Page, Response, Transport, WebhookVerificationError, construct_event, sign_webhook, verify_webhook
from corridor.client import _path
from corridor.errors import error_from_response, parse_retry_after

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
BODY = '{"id":"evt_1","type":"payout.paid","data":{"amount":"10.00"}}'


def standard_headers(secret: str, message_id: str, timestamp: int, body: str) -> dict:
    key = base64.b64decode(secret[len("whsec_"):])
    mac = hmac.new(key, f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": "v1," + base64.b64encode(mac).decode()}


class ErrorShapes(unittest.TestCase):
    def test_problem_details_carry_code_request_id_and_an_authoritative_retryable(self):
        body = json.dumps({"type": "about:blank", "code": "PAYOUT_PROVIDER_UNAVAILABLE", "detail": "The rail is down", "retryable": True, "request_id": "req_1", "errors": [{"field": "amount", "message": "bad"}]})
        err = error_from_response(503, {"content-type": "application/problem+json"}, body)
        self.assertEqual((err.status, err.code, err.request_id, err.retryable, err.shape, str(err)), (503, "PAYOUT_PROVIDER_UNAVAILABLE", "req_1", True, "problem", "The rail is down"))
        self.assertEqual(err.details, [{"field": "amount", "message": "bad"}])

    def test_a_problem_503_that_says_retryable_false_is_not_retried(self):
        err = error_from_response(503, {"content-type": "application/problem+json"}, json.dumps({"code": "X_Y", "detail": "no", "retryable": False}))
        self.assertFalse(err.retryable)

    def test_legacy_statuses_429_502_503_504_are_retryable_and_500_is_not(self):
        for status, retryable in ((429, True), (502, True), (503, True), (504, True), (500, False), (400, False)):
            err = error_from_response(status, {"x-request-id": "req_2"}, json.dumps({"statusCode": status, "message": "Oops"}))
            self.assertEqual((err.retryable, err.request_id, err.shape), (retryable, "req_2", "legacy"), status)

    def test_a_legacy_code_like_message_is_the_code_and_a_status_phrase_is_not(self):
        self.assertEqual(error_from_response(400, {}, json.dumps({"statusCode": 400, "message": "AMOUNT_OUT_OF_BOUNDS"})).code, "AMOUNT_OUT_OF_BOUNDS")
        self.assertIsNone(error_from_response(400, {}, json.dumps({"statusCode": 400, "message": "Bad Request"})).code)

    def test_validation_details_are_the_failing_fields(self):
        err = error_from_response(400, {}, json.dumps({"statusCode": 400, "message": "a; b", "details": [{"field": "accounts.0.data.iban", "message": "bad", "code": "INVALID_IBAN"}]}))
        self.assertEqual((err.shape, err.details[0]["code"]), ("validation", "INVALID_IBAN"))

    def test_an_oauth_error_is_its_code(self):
        err = error_from_response(401, {}, json.dumps({"error": "invalid_client", "error_description": "Unknown client"}))
        self.assertEqual((err.shape, err.code, str(err)), ("oauth", "invalid_client", "Unknown client"))

    def test_retry_after_takes_seconds_and_http_dates(self):
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertEqual(parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", now=40.0), 60.0)
        self.assertIsNone(parse_retry_after("soon"))


class Backoff(unittest.TestCase):
    def test_the_delay_is_jittered_below_the_doubled_base_and_never_shorter_than_retry_after(self):
        t = Transport("http://x.invalid", "a", "b", retry_base_delay=0.5, retry_max_delay=3.0, retry_after_max=10.0)
        plain = CorridorError(503, "x", retryable=True)
        for retry in range(6):
            delay = t.delay(retry, plain)
            self.assertIsNotNone(delay)
            self.assertLessEqual(delay, min(3.0, 0.5 * 2**retry))
        self.assertGreaterEqual(t.delay(0, CorridorError(429, "x", retryable=True, retry_after=2.0)), 2.0)
        self.assertIsNone(t.delay(0, CorridorError(429, "x", retryable=True, retry_after=11.0)))

    def test_a_network_error_is_retried_with_the_same_idempotency_key_then_raised(self):
        sleeps = []
        t = Transport("http://127.0.0.1:9", "a", "b", max_retries=2, sleep=sleeps.append)
        t._token = ("tok", time.monotonic() + 60)
        keys = []
        real_send = t._send

        def send(method, url, headers, data):
            keys.append(headers.get("idempotency-key"))
            return real_send(method, url, headers, data)

        t._send = send
        with self.assertRaises(CorridorError) as caught:
            t.request("POST", "/v1/payouts", body={"a": 1})
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.shape), (0, "NETWORK_ERROR", "network"))
        self.assertEqual(len(keys), 3)
        self.assertEqual(len(set(keys)), 1)
        self.assertEqual(len(sleeps), 2)


class TokenCache(unittest.TestCase):
    def test_one_token_for_concurrent_calls_renewed_before_it_expires(self):
        t = Transport("http://x.invalid", "a", "b", token_renew_before=60)
        issued = []

        def send(method, url, headers, data):
            issued.append(url)
            time.sleep(0.02)
            return Response(200, {}, json.dumps({"access_token": f"tok{len(issued)}", "token_type": "Bearer", "expires_in": 3600}))

        t._send = send
        threads = [threading.Thread(target=t.access_token) for _ in range(10)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(issued, ["http://x.invalid/oauth/token"])
        self.assertEqual(t.access_token(), "tok1")
        # 3600 s lifetime, renewed 60 s before: at 3540 s on the monotonic clock from its request.
        value, renew_at = t._token
        t._token = (value, time.monotonic() - 1)
        self.assertEqual(t.access_token(), "tok2")
        self.assertAlmostEqual(t._token[1] - time.monotonic(), 3540, delta=5)

    def test_a_short_lived_token_is_renewed_at_half_its_life(self):
        t = Transport("http://x.invalid", "a", "b", token_renew_before=60)
        t._send = lambda method, url, headers, data: Response(200, {}, json.dumps({"access_token": "short", "expires_in": 100}))
        t.access_token()
        self.assertAlmostEqual(t._token[1] - time.monotonic(), 50, delta=5)


class Webhooks(unittest.TestCase):
    def test_the_spec_signature_verifies_and_a_changed_body_or_signature_does_not(self):
        now = int(time.time())
        headers = {"X-Service-Signature": sign_webhook(SECRET, now, BODY), "X-Service-Timestamp": str(now)}
        self.assertTrue(verify_webhook(BODY, headers, SECRET))
        self.assertTrue(verify_webhook(BODY.encode(), headers, SECRET))
        self.assertFalse(verify_webhook(BODY.replace("10.00", "99.00"), headers, SECRET))
        self.assertFalse(verify_webhook(BODY, {**headers, "X-Service-Signature": "0" * 64}, SECRET))
        self.assertFalse(verify_webhook(BODY, headers, SECRET + "x"))

    def test_a_timestamp_outside_the_tolerance_is_refused(self):
        old = int(time.time()) - 301
        self.assertFalse(verify_webhook(BODY, {"x-service-signature": sign_webhook(SECRET, old, BODY), "x-service-timestamp": str(old)}, SECRET))

    def test_a_standard_webhooks_v1_signature_verifies_also_beside_another_secrets(self):
        now = int(time.time())
        headers = standard_headers(SECRET, "evt_1", now, BODY)
        other = standard_headers("whsec_" + base64.b64encode(b"x" * 32).decode(), "evt_1", now, BODY)["webhook-signature"]
        self.assertTrue(verify_webhook(BODY, headers, SECRET))
        self.assertTrue(verify_webhook(BODY, {**headers, "webhook-signature": other + " " + headers["webhook-signature"]}, SECRET))
        self.assertFalse(verify_webhook(BODY, {**headers, "webhook-id": "evt_2"}, SECRET))

    def test_construct_event_parses_a_verified_delivery_and_raises_on_a_forged_one(self):
        now = int(time.time())
        headers = {"x-service-signature": sign_webhook(SECRET, now, BODY), "x-service-timestamp": str(now)}
        self.assertEqual(construct_event(BODY, headers, SECRET)["type"], "payout.paid")
        with self.assertRaises(WebhookVerificationError):
            construct_event(BODY + " ", headers, SECRET)


class Paths(unittest.TestCase):
    def test_path_parameters_are_filled_in_order_and_encoded(self):
        self.assertEqual(_path("/v1/webhooks/{id}/deliveries/{deliveryId}/resend", "w/1", "d 2"), "/v1/webhooks/w%2F1/deliveries/d%202/resend")
        with self.assertRaises(TypeError):
            _path("/v1/payouts/{id}")

    def test_auto_paging_iter_follows_next_cursor_until_has_more_is_false(self):
        pages = {None: {"data": [1, 2], "hasMore": True, "nextCursor": "c1"}, "c1": {"data": [3], "hasMore": True, "nextCursor": "c2"}, "c2": {"data": [4], "hasMore": False, "nextCursor": None}}
        fetched = []

        def fetch(cursor):
            fetched.append(cursor)
            return Page(pages[cursor], fetch)

        self.assertEqual(list(fetch(None).auto_paging_iter()), [1, 2, 3, 4])
        self.assertEqual(fetched, [None, "c1", "c2"])


if __name__ == "__main__":
    unittest.main()
