"""What the tests share: the server under test, a signed-up user, a TCP proxy that can cut connections, small
local HTTP servers, and waiting for a condition."""

from __future__ import annotations

import atexit
import http.server
import os
import secrets
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

from warden_client import Agent, Warden, WardenError


def warden_url() -> str:
    """WARDEN_URL, the running server (deploy/interop/python-client.sh passes it)."""
    url = os.environ.get("WARDEN_URL", "").rstrip("/")
    if not url:
        raise RuntimeError("WARDEN_URL is not set: run these tests against a running `warden dev`")
    return url


@dataclass
class User:
    """A person signed up for this run: their id, session token and a client acting as them."""

    id: str
    username: str
    session: str
    client: Warden

    def new_agent(self, name: str, permissions: List[Dict[str, object]], type: str = "autonomous") -> Agent:
        """An agent of this user, with its token."""
        return self.client.create_agent(self.id, name, type, permissions)


_users: Dict[str, User] = {}
_users_lock = threading.Lock()


def user(tag: str = "shared") -> User:
    """A user signed up once per run and tag (sign-up is rate-limited per IP: the tests share few)."""
    with _users_lock:
        if tag not in _users:
            _users[tag] = sign_up(tag)
        return _users[tag]


def sign_up(tag: str) -> User:
    """POST /auth/sign-up with a fresh username (waits out a 429 twice at most, as a careful client would)."""
    base = warden_url()
    anonymous = Warden(base)
    username = f"py-{tag}-{secrets.token_hex(5)}"[:32]
    body = {"username": username, "password": f"pw-{secrets.token_urlsafe(12)}"}
    for attempt in range(3):
        try:
            answer = anonymous.request("POST", "/auth/sign-up", body=body, authenticated=False)
            break
        except WardenError as error:
            if error.status != 429 or attempt == 2 or (error.retry_after or 0) > 70:
                raise
            time.sleep((error.retry_after or 1) + 0.1)
    anonymous.close()
    client = Warden(base, token=answer["token"])
    atexit.register(client.close)
    return User(answer["user"]["id"], username, answer["token"], client)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls ``condition`` every 20 ms; fails with ``what`` when it does not hold within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


class CuttableProxy:
    """A TCP proxy in front of the server that the test controls: it records the request head of every
    connection it forwards, can cut every open connection at once (:meth:`drop_all`), and while
    :attr:`refusing` is set, closes new connections as soon as they are accepted (the server "is down")."""

    def __init__(self, upstream_url: str) -> None:
        parts = urllib.parse.urlsplit(upstream_url)
        self._upstream = (parts.hostname or "localhost", parts.port or 80)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.refusing = False
        self.refused = 0
        self.heads: List[str] = []
        self._lock = threading.Lock()
        self._open: Set[socket.socket] = set()
        self._closed = False
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def drop_all(self) -> int:
        """Cuts every open connection (both sides); returns how many client connections were cut."""
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            _shut(sock)
        return len(sockets) // 2

    def close(self) -> None:
        self._closed = True
        _shut(self._listener)
        self.drop_all()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.refusing:
                self.refused += 1
                _shut(client)
                continue
            try:
                upstream = socket.create_connection(self._upstream)
            except OSError:
                _shut(client)
                continue
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, record: bool) -> None:
        head = b""
        try:
            while True:
                chunk = source.recv(65536)
                if not chunk:
                    break
                if record and b"\r\n\r\n" not in head:
                    head += chunk
                    if b"\r\n\r\n" in head:
                        with self._lock:
                            self.heads.append(head.split(b"\r\n\r\n")[0].decode("latin-1"))
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            _shut(source)
            _shut(target)


def header_of(head: str, name: str) -> Optional[str]:
    """A header's value in a recorded request head (case-insensitive), or ``None``."""
    for line in head.split("\r\n")[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == name.lower():
            return value.strip()
    return None


class LocalServer:
    """A small HTTP server on 127.0.0.1 for one test; ``handler`` is a BaseHTTPRequestHandler subclass."""

    def __init__(self, handler: type) -> None:
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, name="local-server", daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def event_position(event_id: str) -> Tuple[int, int]:
    """Where an event id sits in the stream: ``"R"`` is (R, -1), ``"R.i"`` is (R, i) (docs/events.md)."""
    record, _, index = event_id.partition(".")
    return int(record), int(index) if index else -1


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
