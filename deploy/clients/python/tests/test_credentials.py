"""Agent credentials: an agent's own token, and client-credentials access tokens for a service agent bound as an
OAuth client (docs/agents-oauth.md), cached and renewed."""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
import unittest
import urllib.parse
from typing import List

import support
from warden_client import AgentCredentials, ClientCredentials, Warden, WardenError

SERVICE_PERMISSIONS = [
    {"resource": "authorize", "actions": ["write"]},  # the scope authorize:write, to call POST /authorize
    {"resource": "agents", "actions": ["read"]},  # the scope agents:read
    {"resource": "mcp:reports:*", "actions": ["export"]},
]


def _claims(jwt: str) -> dict:
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class ServiceAgentClientCredentials(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.user = support.user()

    def service_agent(self, name: str) -> AgentCredentials:
        agent = self.user.new_agent(name, SERVICE_PERMISSIONS, type="service")
        binding = self.user.client.bind_oauth_client(agent.id)
        self.assertEqual(binding["client_id"], agent.id)
        self.assertIn("client_credentials", binding["grant_types"])
        return agent.credentials()

    def test_the_agent_acts_through_access_tokens(self) -> None:
        credentials = self.service_agent("py-cc")
        tokens = credentials.client_credentials(support.warden_url())
        self.addCleanup(tokens.close)
        warden = Warden(support.warden_url(), token=tokens)
        self.addCleanup(warden.close)
        decision = warden.authorize(credentials.agent_id, "export", "mcp:reports:q3")
        access = tokens.bearer_token()
        self.assertEqual(tokens.bearer_token(), access, "the token is cached, not fetched per request")
        self.assertTrue(decision.allowed, decision)
        self.assertEqual(warden.get_agent(credentials.agent_id).id, credentials.agent_id)
        self.assertTrue(access.startswith("ey"), "an RFC 9068 JWT, not the agent token")
        claims = _claims(access)
        self.assertEqual((claims["sub"], claims["sub_kind"], claims["client_id"]),
                         (credentials.agent_id, "agent", credentials.agent_id))
        self.assertEqual(set(tokens.scope.split()), {"authorize:write", "agents:read"})

    def test_a_token_near_its_end_is_replaced_by_a_new_grant(self) -> None:
        credentials = self.service_agent("py-cc-renew")
        now = [0.0]
        tokens = ClientCredentials(support.warden_url(), credentials.agent_id, credentials.token,
                                   clock=lambda: now[0])
        self.addCleanup(tokens.close)
        first = tokens.bearer_token()
        now[0] += _claims(first)["exp"] - _claims(first)["iat"]  # the token's whole life later
        second = tokens.bearer_token()
        self.assertNotEqual(_claims(second)["jti"], _claims(first)["jti"])
        with Warden(support.warden_url(), token=tokens) as warden:
            self.assertTrue(warden.authorize(credentials.agent_id, "export", "mcp:reports:q3").allowed)

    def test_a_narrower_scope_is_what_the_token_carries(self) -> None:
        credentials = self.service_agent("py-cc-scope")
        tokens = credentials.client_credentials(support.warden_url(), scope="agents:read")
        self.addCleanup(tokens.close)
        warden = Warden(support.warden_url(), token=tokens)
        self.addCleanup(warden.close)
        self.assertEqual(warden.get_agent(credentials.agent_id).name, "py-cc-scope")
        with self.assertRaises(WardenError) as caught:
            warden.authorize(credentials.agent_id, "export", "mcp:reports:q3")
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "insufficient_scope"))

    def test_a_scope_the_agent_does_not_hold_is_an_oauth_error(self) -> None:
        credentials = self.service_agent("py-cc-bad-scope")
        tokens = credentials.client_credentials(support.warden_url(), scope="audit:read")
        self.addCleanup(tokens.close)
        with self.assertRaises(WardenError) as caught:
            tokens.bearer_token()
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid_scope"))

    def test_after_a_rotation_the_cached_token_is_refused_and_the_old_secret_too(self) -> None:
        credentials = self.service_agent("py-cc-rotate")
        tokens = credentials.client_credentials(support.warden_url())
        self.addCleanup(tokens.close)
        warden = Warden(support.warden_url(), token=tokens)
        self.addCleanup(warden.close)
        warden.get_agent(credentials.agent_id)
        self.user.client.rotate_agent(credentials.agent_id)
        # The cached access token relied on the old agent token: 401; the client asks for a new one with the
        # old secret, which the token endpoint refuses: that refusal is what surfaces.
        with self.assertRaises(WardenError) as caught:
            warden.get_agent(credentials.agent_id)
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_client"))

    def test_an_unbound_agent_is_no_client(self) -> None:
        agent = self.user.new_agent("py-unbound", SERVICE_PERMISSIONS, type="service")
        tokens = agent.credentials().client_credentials(support.warden_url())
        self.addCleanup(tokens.close)
        with self.assertRaises(WardenError) as caught:
            tokens.bearer_token()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_client"))


class _TokenEndpoint(http.server.BaseHTTPRequestHandler):
    """A stand-in token endpoint: counts grants, answers slowly (so concurrent callers overlap), checks the
    client's Basic credentials and the form."""

    protocol_version = "HTTP/1.1"
    grants: List[dict] = []
    lock = threading.Lock()
    delay = 0.0

    def do_POST(self) -> None:  # noqa: N802
        form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers["Content-Length"])).decode()))
        basic = base64.b64decode(self.headers["Authorization"].split(" ", 1)[1]).decode()
        with self.lock:
            self.grants.append({"form": form, "basic": basic})
            number = len(self.grants)
        time.sleep(self.delay)
        body = json.dumps({"access_token": f"access-{number}", "token_type": "Bearer", "expires_in": 100,
                           "scope": form.get("scope", "all")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class TokenCaching(unittest.TestCase):
    """The cache and its renewal, timed with a clock of the test's own against a stand-in endpoint."""

    def setUp(self) -> None:
        self.handler = type("Endpoint", (_TokenEndpoint,), {"grants": [], "lock": threading.Lock()})
        self.server = support.LocalServer(self.handler)
        self.addCleanup(self.server.close)
        self.now = 1000.0

    def tokens(self, **options: object) -> ClientCredentials:
        tokens = ClientCredentials(
            "http://unused.invalid", "agt_x:y", "s3cret/+", token_endpoint=f"{self.server.url}/oauth/token",
            clock=lambda: self.now, **options,
        )
        self.addCleanup(tokens.close)
        return tokens

    def test_renewed_shortly_before_expires_in_runs_out(self) -> None:
        tokens = self.tokens(scope="agents:read")
        self.assertEqual(tokens.bearer_token(), "access-1")
        grant = self.handler.grants[0]
        self.assertEqual(grant["form"], {"grant_type": "client_credentials", "scope": "agents:read"})
        self.assertEqual(grant["basic"], "agt_x%3Ay:s3cret%2F%2B")  # RFC 6749 2.3.1: form-encoded, then joined
        # expires_in 100: renewed 20 s (a fifth of its life) before the end.
        self.now += 79.9
        self.assertEqual(tokens.bearer_token(), "access-1")
        self.now += 0.2
        self.assertEqual(tokens.bearer_token(), "access-2")
        self.assertEqual(len(self.handler.grants), 2)

    def test_a_refused_token_is_forgotten(self) -> None:
        tokens = self.tokens()
        first = tokens.bearer_token()
        self.assertTrue(tokens.invalidate(first))
        self.assertEqual(tokens.bearer_token(), "access-2")
        self.assertTrue(tokens.invalidate("some older token"))
        self.assertEqual(tokens.bearer_token(), "access-2", "only the cached token itself is dropped")

    def test_threads_that_need_a_token_at_once_share_one_request(self) -> None:
        self.handler.delay = 0.3
        tokens = self.tokens()
        barrier = threading.Barrier(8)
        seen: List[str] = []

        def take() -> None:
            barrier.wait()
            seen.append(tokens.bearer_token())

        threads = [threading.Thread(target=take) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        self.assertEqual(seen, ["access-1"] * 8)
        self.assertEqual(len(self.handler.grants), 1)


if __name__ == "__main__":
    unittest.main()
