"""The event stream: events caused by the test arrive; a cut connection is resumed with no gap and no repeat;
close() ends it; the server's retry: and error event are honoured. The SSE parser on the standard's cases."""

from __future__ import annotations

import http.server
import threading
import time
import unittest
from typing import List, Optional

import support
from warden_client import Event, EventStream, SseParser, Warden, WardenError

GITHUB_READ = [{"resource": "mcp:github:*", "actions": ["read"]}]


class Consumer:
    """Iterates a stream on a thread of its own, keeping every event handed out (and what ended it)."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        self.events: List[Event] = []
        self.failure: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._run, name="stream-consumer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for event in self.stream:
                self.events.append(event)
        except BaseException as failure:  # handed to the test, which fails with it
            self.failure = failure

    def audit_ids(self, agent_id: str) -> List[str]:
        """The audit ids of the decisions about ``agent_id`` received, in order."""
        return [
            e.payload["entry"]["id"] for e in list(self.events)
            if e.type == "audit" and e.payload["entry"]["agentId"] == agent_id
        ]

    def wait_for_audits(self, agent_id: str, audit_ids: List[str], timeout: float = 20) -> None:
        def arrived() -> bool:
            if self.failure is not None:
                raise AssertionError(f"the stream failed: {self.failure!r}")
            return set(audit_ids) <= set(self.audit_ids(agent_id))

        support.wait_for(arrived, timeout, f"the audit events of {audit_ids}")


class StreamAgainstTheServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.user = support.user()
        cls.agent = cls.user.new_agent("py-stream", GITHUB_READ)

    def decide(self, n: int) -> List[str]:
        return [self.user.client.authorize(self.agent.id, "read", f"mcp:github:issues:{i}").audit_id
                for i in range(n)]

    def test_a_dropped_connection_resumes_after_the_last_event_with_no_gap_and_no_repeat(self) -> None:
        proxy = support.CuttableProxy(support.warden_url())
        self.addCleanup(proxy.close)
        through_proxy = Warden(proxy.url, token=self.user.session)
        stream = through_proxy.stream(types=["audit"], last_event_id="-1",
                                      reconnect_delay=0.2, max_reconnect_delay=1.0)
        self.addCleanup(stream.close)
        consumer = Consumer(stream)

        before = self.decide(3)
        consumer.wait_for_audits(self.agent.id, before)
        # The server goes away: every connection is cut, and new ones are refused for a while.
        proxy.refusing = True
        self.assertEqual(proxy.drop_all(), 1)
        handed_out = stream.last_event_id
        during = self.decide(3)  # these happen while the client has no connection
        support.wait_for(lambda: proxy.refused >= 2, 10, "the client to try again (and be refused) twice")
        proxy.refusing = False
        consumer.wait_for_audits(self.agent.id, during)
        after = self.decide(2)
        consumer.wait_for_audits(self.agent.id, after)

        stream.close()
        consumer.thread.join(5)
        self.assertFalse(consumer.thread.is_alive(), "close() ends the iteration")
        self.assertIsNone(consumer.failure)

        self.assertEqual(consumer.audit_ids(self.agent.id), before + during + after, "each decision once, in order")
        positions = [support.event_position(e.id) for e in consumer.events]
        self.assertEqual(positions, sorted(set(positions)), "event ids strictly increase: nothing repeated")
        self.assertTrue(all(e.type == "audit" for e in consumer.events), "only the asked-for type")
        self.assertEqual(stream.connections, 2)
        self.assertEqual(len(proxy.heads), 2)
        self.assertEqual(support.header_of(proxy.heads[0], "Last-Event-ID"), "-1")
        self.assertEqual(support.header_of(proxy.heads[1], "Last-Event-ID"), handed_out)
        self.assertEqual(support.header_of(proxy.heads[1], "Accept"), "text/event-stream")
        self.assertIn("types=audit", proxy.heads[1].split("\r\n")[0])

    def test_events_of_the_users_own_actions_arrive_live(self) -> None:
        stream = self.user.client.stream(types=["agent.created", "agent.revoked"], since="2000-01-01T00:00:00Z")
        self.addCleanup(stream.close)
        consumer = Consumer(stream)
        agent = self.user.new_agent("py-stream-lifecycle", GITHUB_READ)
        self.user.client.revoke_agent(agent.id)

        def both() -> bool:
            return {(e.type, e.payload["agent"]["id"]) for e in list(consumer.events)} >= {
                ("agent.created", agent.id), ("agent.revoked", agent.id)}

        support.wait_for(both, 20, "agent.created and agent.revoked of the new agent")
        event = next(e for e in consumer.events if e.type == "agent.created" and e.payload["agent"]["id"] == agent.id)
        self.assertEqual(event.data["id"], event.id)
        self.assertEqual(event.data["userId"], self.user.id)
        self.assertNotIn("token", event.payload["agent"])

    def test_close_from_another_thread_ends_a_waiting_iteration(self) -> None:
        stream = self.user.client.stream(types=["budget.exceeded"])  # nothing will come
        consumer = Consumer(stream)
        support.wait_for(lambda: stream.connections == 1, 10, "the stream to connect")
        started = time.monotonic()
        stream.close()
        consumer.thread.join(5)
        self.assertFalse(consumer.thread.is_alive())
        self.assertLess(time.monotonic() - started, 2)
        self.assertIsNone(consumer.failure)
        self.assertEqual(consumer.events, [])

    def test_an_invalid_token_is_raised_not_retried(self) -> None:
        stream = Warden(support.warden_url(), token="wdn_ses_nope").stream()
        with self.assertRaises(WardenError) as caught:
            next(stream)
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "UNAUTHORIZED"))
        self.assertEqual(caught.exception.detail, "Invalid token")

    def test_an_unknown_type_is_a_400_naming_types(self) -> None:
        with self.assertRaises(WardenError) as caught:
            next(self.user.client.stream(types=["no.such.type"]))
        self.assertEqual(caught.exception.status, 400)
        self.assertEqual(caught.exception.code, "validation_invalid")
        self.assertEqual([e["field"] for e in caught.exception.errors], ["types"])


class _Script(http.server.BaseHTTPRequestHandler):
    """An event-stream stand-in: connection n answers ``bodies[n]`` and ends the stream; the last stays open."""

    bodies: List[bytes] = []
    requests: List[tuple] = []

    def do_GET(self) -> None:  # noqa: N802
        number = len(self.requests)
        self.requests.append((time.monotonic(), self.headers.get("Last-Event-ID")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(self.bodies[min(number, len(self.bodies) - 1)])
        self.wfile.flush()
        if number >= len(self.bodies) - 1:
            time.sleep(3)  # the last connection stays open until the test has closed the stream

    def log_message(self, *args: object) -> None:
        pass


class StreamProtocol(unittest.TestCase):
    def serve(self, *bodies: bytes) -> support.LocalServer:
        handler = type("Script", (_Script,), {"bodies": list(bodies), "requests": []})
        server = support.LocalServer(handler)
        self.addCleanup(server.close)
        self.requests = handler.requests
        return server

    def test_the_servers_retry_field_sets_the_reconnection_time(self) -> None:
        server = self.serve(b"retry: 50\nid: 7\nevent: x\ndata: {\"n\": 1}\n\n", b"id: 8\ndata: {\"n\": 2}\n\n")
        stream = Warden(server.url, token="t").stream(reconnect_delay=10.0)
        self.addCleanup(stream.close)
        first = next(stream)
        second = next(stream)
        self.assertEqual((first.id, first.type, first.data), ("7", "x", {"n": 1}))
        self.assertEqual((second.id, second.type, second.data), ("8", "message", {"n": 2}))
        (opened, cursor0), (reopened, cursor1) = self.requests[:2]
        self.assertIsNone(cursor0)
        self.assertEqual(cursor1, "7")
        self.assertLess(reopened - opened, 2.0, "waited the server's 50 ms, not the client's 10 s")

    def test_a_control_event_is_handed_out_without_moving_the_cursor(self) -> None:
        server = self.serve(
            b": connected\n\nid: 3\ndata: {}\n\nevent: replay.incomplete\ndata: {\"reason\":\"retention\"}\n\n",
            b"id: 4\ndata: {}\n\n",
        )
        stream = Warden(server.url).stream(reconnect_delay=0.05)
        self.addCleanup(stream.close)
        events = [next(stream) for _ in range(3)]
        self.assertEqual([(e.id, e.type) for e in events], [("3", "message"), (None, "replay.incomplete"),
                                                             ("4", "message")])
        self.assertEqual(self.requests[1][1], "3")

    def test_gives_up_after_max_reconnects_when_nothing_answers(self) -> None:
        stream = Warden("http://127.0.0.1:9").stream(reconnect_delay=0.01, max_reconnects=2)
        with self.assertRaises(OSError):
            next(stream)


class ParserCases(unittest.TestCase):
    def test_line_endings_comments_multiline_data_and_fields(self) -> None:
        parser = SseParser()
        wire = (b"\xef\xbb\xbf: comment\r\nid: 1\r\nevent: a\r\ndata: x\r\ndata:y\r\n\r\n"
                b"retry: 250\rdata: z\r\rid\n\nid: 2\x00\ndata: w\n\nretry: 1x\nunknown: q\ndata\n\n")
        messages = []
        for i in range(len(wire)):  # byte by byte: every split point, CRLF split across reads included
            messages += parser.feed(wire[i:i + 1])
        self.assertEqual([(m.id, m.event, m.data) for m in messages],
                         [("1", "a", "x\ny"), (None, "message", "z"), (None, "message", "w"), (None, "message", "")])
        self.assertEqual(parser.retry_ms, 250)
        self.assertEqual(parser.last_event_id, "", "an empty id resets it; an id with NUL is ignored")

    def test_a_blank_line_without_data_dispatches_nothing(self) -> None:
        parser = SseParser()
        self.assertEqual(parser.feed(b"id: 5\n\n: heartbeat\n\n"), [])
        self.assertEqual(parser.last_event_id, "5")


if __name__ == "__main__":
    unittest.main()
