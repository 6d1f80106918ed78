"""HTTP over the standard library: one keep-alive connection per thread and origin, JSON and forms in, bytes out."""

from __future__ import annotations

import http.client
import json
import select
import socket
import ssl
import sys
import threading
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ._version import __version__

USER_AGENT = f"warden-client-python/{__version__} Python/{sys.version_info[0]}.{sys.version_info[1]}"

QueryValue = Union[str, int, float, bool, None]


@dataclass(frozen=True)
class Origin:
    """Where requests go: scheme, host, port and the path prefix every request path is appended to."""

    scheme: str
    host: str
    port: int
    prefix: str

    @classmethod
    def parse(cls, url: str) -> "Origin":
        """Reads ``http(s)://host[:port][/prefix]``; raises :class:`ValueError` for anything else."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL with a host: {url!r}")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"the base URL must have no query, fragment or user info: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(parts.scheme, parts.hostname, port, parts.path.rstrip("/"))

    def connect(self, timeout: float) -> http.client.HTTPConnection:
        """A new, not yet opened connection to this origin."""
        if self.scheme == "https":
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def target(self, path: str, query: Optional[Mapping[str, QueryValue]] = None) -> str:
        """The request target: prefix, path and the query (``None`` values left out)."""
        if not path.startswith("/"):
            raise ValueError(f"a path starts with '/': {path!r}")
        target = self.prefix + path
        if query:
            pairs = [(k, _query_text(v)) for k, v in query.items() if v is not None]
            if pairs:
                target += "?" + urllib.parse.urlencode(pairs)
        return target


@dataclass(frozen=True)
class Response:
    """An HTTP answer, read whole."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON, or ``None`` when it is empty."""
        if not self.body:
            return None
        return json.loads(self.body.decode("utf-8"))


class Transport:
    """Sends requests to one origin over keep-alive connections, one per thread (``http.client`` connections
    are not thread-safe). An idle connection the server has closed is noticed before it is reused; a ``GET``
    that fails on a reused connection is sent once more on a new one. Other methods are never re-sent, so a
    decision is never made twice."""

    def __init__(self, origin: Origin, timeout: float) -> None:
        self.origin = origin
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: List[http.client.HTTPConnection] = []

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        json_body: Any = None,
        form: Optional[Sequence[Tuple[str, str]]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Response:
        """Sends one request and reads its whole answer (any status). ``json_body`` and ``form`` are exclusive."""
        send_headers: Dict[str, str] = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        body: Optional[bytes] = None
        if json_body is not None and form is not None:
            raise ValueError("a request has a JSON body or a form, not both")
        if json_body is not None:
            body = json.dumps(json_body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
            send_headers["Content-Type"] = "application/json"
        elif form is not None:
            body = urllib.parse.urlencode(list(form)).encode("ascii")
            send_headers["Content-Type"] = "application/x-www-form-urlencoded"
        if headers:
            send_headers.update(headers)
        target = self.origin.target(path, query)
        connection, reused = self._connection()
        try:
            return self._exchange(connection, method, target, body, send_headers)
        except (ConnectionError, http.client.BadStatusLine):
            if not (reused and method == "GET"):
                raise
        # The server closed the reused connection as the request went out: a GET is safe to send again.
        connection, _ = self._connection()
        return self._exchange(connection, method, target, body, send_headers)

    def close(self) -> None:
        """Closes every connection this transport opened, in every thread."""
        with self._lock:
            connections, self._open = self._open, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    def _exchange(
        self,
        connection: http.client.HTTPConnection,
        method: str,
        target: str,
        body: Optional[bytes],
        headers: Mapping[str, str],
    ) -> Response:
        try:
            connection.request(method, target, body=body, headers=dict(headers))
            answer = connection.getresponse()
            data = answer.read()
        except BaseException:
            # A failure, a timeout or an interruption leaves the connection in an unknown state.
            self._discard(connection)
            raise
        if answer.will_close:
            self._discard(connection)
        return Response(answer.status, _Headers(answer.getheaders()), data)

    def _connection(self) -> Tuple[http.client.HTTPConnection, bool]:
        connection: Optional[http.client.HTTPConnection] = getattr(self._local, "connection", None)
        if connection is not None and connection.sock is not None and not _dropped(connection.sock):
            return connection, True
        if connection is not None:
            self._discard(connection)
        connection = self.origin.connect(self.timeout)
        self._local.connection = connection
        with self._lock:
            self._open.append(connection)
        return connection, False

    def _discard(self, connection: http.client.HTTPConnection) -> None:
        connection.close()
        if getattr(self._local, "connection", None) is connection:
            self._local.connection = None
        with self._lock:
            if connection in self._open:
                self._open.remove(connection)


class _Headers(Mapping[str, str]):
    """Response headers with a case-insensitive lookup (repeated headers joined with ``, ``)."""

    def __init__(self, pairs: Sequence[Tuple[str, str]]) -> None:
        self._values: Dict[str, str] = {}
        self._names: Dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            self._names.setdefault(key, name)
            self._values[key] = f"{self._values[key]}, {value}" if key in self._values else value

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names.values())

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"_Headers({dict((self._names[k], v) for k, v in self._values.items())!r})"


def _dropped(sock: socket.socket) -> bool:
    """True when an idle keep-alive socket is readable: the server closed it (or sent what nobody asked for)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _query_text(value: QueryValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
