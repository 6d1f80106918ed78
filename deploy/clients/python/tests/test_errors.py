"""Every answer outside 2xx is a WardenError carrying what the server said."""

from __future__ import annotations

import http.server
import json
import unittest

import support
from warden_client import Warden, WardenError


class ProblemsFromTheServer(unittest.TestCase):
    """Problems (RFC 9457) of the real server: code, detail, the fields at fault, the request id."""

    def setUp(self) -> None:
        self.user = support.user()

    def test_a_bad_body_names_every_bad_field_and_the_request_id(self) -> None:
        with self.assertRaises(WardenError) as caught:
            self.user.client.request(
                "POST",
                "/agents",
                body={"ownerId": self.user.id, "name": "", "type": "robot",
                      "permissions": [{"resource": "mcp:*:x", "actions": []}]},
                headers={"X-Request-Id": "py-client-problem-1"},
            )
        error = caught.exception
        self.assertEqual(error.status, 400)
        self.assertEqual(error.code, "validation_invalid")
        self.assertTrue(error.detail)
        self.assertEqual(
            {e["field"] for e in error.errors},
            {"name", "type", "permissions[0].resource", "permissions[0].actions"},
        )
        self.assertEqual(error.request_id, "py-client-problem-1")  # the caller's own id, echoed in the problem
        self.assertEqual(error.body["requestId"], "py-client-problem-1")
        self.assertIn("validation_invalid", str(error))

    def test_a_decision_about_an_agent_one_may_not_see_is_a_404_problem(self) -> None:
        with self.assertRaises(WardenError) as caught:
            self.user.client.authorize("agt_00000000000000000000000000", "read", "mcp:github:x")
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.code, "agent_not_found")
        self.assertTrue(caught.exception.request_id.startswith("req_"), caught.exception.request_id)

    def test_an_unknown_token_is_a_401_problem(self) -> None:
        with Warden(support.warden_url(), token="wdn_ses_not-a-session") as client:
            with self.assertRaises(WardenError) as caught:
                client.list_agents()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))


class _Canned(http.server.BaseHTTPRequestHandler):
    """Answers every request with the class's canned status, headers and body."""

    status = 500
    headers_out: dict = {}
    body = b""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.send_response(self.status)
        for name, value in self.headers_out.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


def _canned(status: int, headers: dict, body: bytes) -> support.LocalServer:
    handler = type("Handler", (_Canned,), {"status": status, "headers_out": headers, "body": body})
    return support.LocalServer(handler)


class OtherShapes(unittest.TestCase):
    """The shapes the rate limiter and plain-text answers use, served by a local stand-in (a 429 cannot be
    caused on the shared server without starving the other interop scripts of their sign-ups)."""

    def test_a_429_exposes_retry_after_and_the_rate_limiters_code(self) -> None:
        body = json.dumps({"error": {"code": "RATE_LIMIT_EXCEEDED", "message": "Try again in 7 seconds",
                                     "details": {"limit": 5, "window": 60, "retryAfter": 7}}}).encode()
        server = _canned(429, {"Content-Type": "application/json", "Retry-After": "7",
                               "X-Request-Id": "req_rate"}, body)
        self.addCleanup(server.close)
        with Warden(server.url) as client, self.assertRaises(WardenError) as caught:
            client.request("GET", "/auth/session")
        error = caught.exception
        self.assertEqual((error.status, error.code, error.retry_after), (429, "RATE_LIMIT_EXCEEDED", 7.0))
        self.assertEqual(error.detail, "Try again in 7 seconds")
        self.assertEqual(error.request_id, "req_rate")

    def test_a_plain_text_503_keeps_its_text_and_retry_after(self) -> None:
        server = _canned(503, {"Content-Type": "text/plain", "Retry-After": "5"}, b"Too many connections")
        self.addCleanup(server.close)
        with Warden(server.url) as client, self.assertRaises(WardenError) as caught:
            client.request("GET", "/events/stream")
        self.assertEqual(caught.exception.status, 503)
        self.assertIsNone(caught.exception.code)
        self.assertEqual(caught.exception.detail, "Too many connections")
        self.assertEqual(caught.exception.retry_after, 5.0)

    def test_an_oauth_error_body_gives_code_and_description(self) -> None:
        body = json.dumps({"error": "invalid_scope", "error_description": "not covered"}).encode()
        server = _canned(400, {"Content-Type": "application/json"}, body)
        self.addCleanup(server.close)
        with Warden(server.url) as client, self.assertRaises(WardenError) as caught:
            client.request("GET", "/oauth/token")
        self.assertEqual((caught.exception.code, caught.exception.detail), ("invalid_scope", "not covered"))


if __name__ == "__main__":
    unittest.main()
