"""Webhook verification: test vectors computed here with hmac and hashlib (and Standard Webhooks' published one),
then a real delivery from the server to a receiver in this test."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import secrets
import threading
import unittest
from typing import Dict, List, Tuple

import support
from warden_client import WebhookVerificationError, WebhookVerifier, verify_webhook

KEY = secrets.token_bytes(24)
SECRET = "whsec_" + base64.b64encode(KEY).decode()
NOW = 1_800_000_000
BODY = b'{"id":"41","type":"agent.created","data":{"agent":{"id":"agt_1"}}}'


def sign(key: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """The signature as Standard Webhooks defines it, written out independently of the library."""
    mac = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(signature: str, message_id: str = "41", timestamp: int = NOW) -> Dict[str, str]:
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": signature}


class Vectors(unittest.TestCase):
    def test_standard_webhooks_published_vector(self) -> None:
        # The example of the Standard Webhooks specification and its reference libraries' tests.
        event = verify_webhook(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            {"webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp": "1614265330",
             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="},
            b'{"test": 2432232314}',
            now=1614265330,
        )
        self.assertEqual(event, {"test": 2432232314})

    def test_a_good_signature_returns_the_event(self) -> None:
        event = verify_webhook(SECRET, headers(sign(KEY, "41", NOW, BODY)), BODY, now=NOW)
        self.assertEqual(event["type"], "agent.created")

    def test_any_of_several_signatures_may_match_and_other_versions_are_ignored(self) -> None:
        other = sign(secrets.token_bytes(24), "41", NOW, BODY)
        good = sign(KEY, "41", NOW, BODY)
        value = f"{other} v1a,{good.split(',', 1)[1]} v1,%%% {good}"
        self.assertEqual(verify_webhook(SECRET, headers(value), BODY, now=NOW)["id"], "41")
        with self.assertRaises(WebhookVerificationError):  # the right MAC under another version does not count
            verify_webhook(SECRET, headers(f"{other} v1a,{good.split(',', 1)[1]}"), BODY, now=NOW)

    def test_header_names_match_in_any_case(self) -> None:
        mixed = {"Webhook-Id": "41", "WEBHOOK-TIMESTAMP": str(NOW), "Webhook-Signature": sign(KEY, "41", NOW, BODY)}
        self.assertEqual(verify_webhook(SECRET, mixed, BODY.decode(), now=NOW)["id"], "41")

    def test_every_mismatch_is_refused(self) -> None:
        good = sign(KEY, "41", NOW, BODY)
        cases: List[Tuple[str, Dict[str, str], bytes]] = [
            ("a changed body", headers(good), BODY.replace(b"agt_1", b"agt_2")),
            ("another message id", headers(good, message_id="42"), BODY),
            ("another timestamp", headers(good, timestamp=NOW + 1), BODY),
            ("another key", headers(sign(secrets.token_bytes(24), "41", NOW, BODY)), BODY),
            ("no v1 signature", headers("v2," + good.split(",", 1)[1]), BODY),
            ("a missing signature header", {"webhook-id": "41", "webhook-timestamp": str(NOW)}, BODY),
            ("a missing id header", {"webhook-timestamp": str(NOW), "webhook-signature": good}, BODY),
            ("a timestamp that is not a number", headers(good) | {"webhook-timestamp": "soon"}, BODY),
        ]
        for name, given, body in cases:
            with self.subTest(name), self.assertRaises(WebhookVerificationError):
                verify_webhook(SECRET, given, body, now=NOW)

    def test_the_timestamp_must_be_within_tolerance_both_ways(self) -> None:
        for sent, accepted in ((NOW - 300, True), (NOW - 301, False), (NOW + 300, True), (NOW + 301, False)):
            with self.subTest(sent=sent):
                given = headers(sign(KEY, "41", sent, BODY), timestamp=sent)
                if accepted:
                    verify_webhook(SECRET, given, BODY, now=NOW)
                else:
                    with self.assertRaises(WebhookVerificationError):
                        verify_webhook(SECRET, given, BODY, now=NOW)
        wide = headers(sign(KEY, "41", NOW - 3600, BODY), timestamp=NOW - 3600)
        self.assertEqual(WebhookVerifier(SECRET, tolerance=3600).verify(wide, BODY, now=NOW)["id"], "41")

    def test_a_signed_body_that_is_not_json_is_refused(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, headers(sign(KEY, "41", NOW, b"not json")), b"not json", now=NOW)

    def test_a_malformed_secret_is_refused(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            WebhookVerifier("whsec_***not base64***")


class _Receiver(http.server.BaseHTTPRequestHandler):
    """Keeps every delivery (headers and raw body) and answers 204."""

    deliveries: List[Tuple[Dict[str, str], bytes]] = []
    arrived = threading.Condition()

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.arrived:
            self.deliveries.append(({k: v for k, v in self.headers.items()}, body))
            self.arrived.notify_all()
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


class RealDelivery(unittest.TestCase):
    def test_a_delivery_from_the_server_verifies_and_a_tampered_one_does_not(self) -> None:
        user = support.user()
        receiver_class = type("Receiver", (_Receiver,), {"deliveries": [], "arrived": threading.Condition()})
        receiver = support.LocalServer(receiver_class)
        self.addCleanup(receiver.close)
        endpoint = user.client.create_webhook(f"{receiver.url}/hook", event_types=["agent.created"],
                                              description="python client test")
        self.addCleanup(user.client.delete_webhook, endpoint["id"])
        self.assertTrue(endpoint["secret"].startswith("whsec_"))

        agent = user.new_agent("py-webhook", [{"resource": "mcp:github:*", "actions": ["read"]}])

        def delivered() -> bool:
            return any(json.loads(body)["data"]["agent"]["id"] == agent.id
                       for _, body in list(receiver_class.deliveries))

        support.wait_for(delivered, 30, f"the agent.created delivery of {agent.id}")
        sent_headers, body = next((h, b) for h, b in receiver_class.deliveries
                                  if json.loads(b)["data"]["agent"]["id"] == agent.id)
        event = verify_webhook(endpoint["secret"], sent_headers, body)  # the real clock: a fresh delivery
        self.assertEqual((event["type"], event["userId"]), ("agent.created", user.id))
        self.assertEqual(event["id"], sent_headers["webhook-id"])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(endpoint["secret"], sent_headers, body.replace(b"py-webhook", b"py-webhooK"))
        with self.assertRaises(WebhookVerificationError):  # another endpoint's secret
            verify_webhook(SECRET, sent_headers, body)


if __name__ == "__main__":
    unittest.main()
