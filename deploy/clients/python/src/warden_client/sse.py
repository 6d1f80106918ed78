"""Server-sent events: the wire parser, and the stream that reads Warden's ``GET /events/stream`` and resumes it."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ._transport import USER_AGENT, Origin
from .credentials import TokenSource
from .errors import WardenError
from .models import Event

__all__ = ["SseMessage", "SseParser", "EventStream"]

LOG = logging.getLogger("warden_client.sse")


@dataclass(frozen=True)
class SseMessage:
    """One dispatched message of the SSE wire format (HTML Living Standard, "Server-sent events").

    Attributes:
        id: the ``id:`` field of this message, ``None`` when it had none.
        event: the ``event:`` field, ``"message"`` when it had none.
        data: the ``data:`` lines joined with ``\\n``.
    """

    id: Optional[str]
    event: str
    data: str


class SseParser:
    """Turns the bytes of an event stream into messages, as the standard's parsing rules say: lines end at CRLF,
    LF or CR (also across reads); a leading byte order mark is dropped; ``:`` lines are comments; ``data``
    lines accumulate; a blank line dispatches (nothing when there was no data); ``id`` with a NUL is ignored;
    ``retry`` takes only digits; unknown fields are ignored.

    After each :meth:`feed`, :attr:`last_event_id` is the stream's last event id (also set by an ``id`` without
    data, as the standard has it) and :attr:`retry_ms` the reconnection time the server asked for, if any.
    """

    #: The longest line accepted; a longer one is a broken stream, not an event to buffer without end.
    MAX_LINE = 16 * 1024 * 1024

    def __init__(self) -> None:
        self._buffer = b""
        self._pending_cr = False
        self._started = False
        self._data: List[str] = []
        self._has_data = False
        self._event = ""
        self._id: Optional[str] = None
        self.last_event_id: Optional[str] = None
        self.retry_ms: Optional[int] = None

    def feed(self, chunk: bytes) -> List[SseMessage]:
        """Parses a chunk; returns the messages it completed."""
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the LF of a CRLF split across two reads
        self._pending_cr = False
        self._buffer += chunk
        messages: List[SseMessage] = []
        start = 0
        buffer = self._buffer
        length = len(buffer)
        while start < length:
            cr = buffer.find(b"\r", start)
            lf = buffer.find(b"\n", start)
            if cr < 0 and lf < 0:
                break
            if cr >= 0 and (lf < 0 or cr < lf):
                end, after = cr, cr + 1
                if after < length and buffer[after:after + 1] == b"\n":
                    after += 1
                elif after == length:
                    self._pending_cr = True
            else:
                end, after = lf, lf + 1
            message = self._line(buffer[start:end])
            if message is not None:
                messages.append(message)
            start = after
        self._buffer = buffer[start:]
        if len(self._buffer) > self.MAX_LINE:
            raise ValueError(f"an event-stream line longer than {self.MAX_LINE} bytes")
        return messages

    def reset(self) -> None:
        """Forgets a half-read message (the connection dropped); keeps the last event id and the retry time."""
        self._buffer = b""
        self._pending_cr = False
        self._started = False
        self._data = []
        self._has_data = False
        self._event = ""
        self._id = None

    def _line(self, raw: bytes) -> Optional[SseMessage]:
        line = raw.decode("utf-8", errors="replace")
        if not self._started:
            self._started = True
            if line.startswith("\ufeff"):
                line = line[1:]
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
                self.last_event_id = value
        elif name == "retry":
            if value.isdigit() and value.isascii():
                self.retry_ms = int(value)
        return None

    def _dispatch(self) -> Optional[SseMessage]:
        message = None
        if self._has_data:
            message = SseMessage(self._id, self._event or "message", "\n".join(self._data))
        self._data = []
        self._has_data = False
        self._event = ""
        self._id = None
        return message


class _Dropped(Exception):
    """The connection ended or failed; reconnect."""


class EventStream:
    """Warden's event stream (``GET /events/stream``) as an iterator of :class:`~warden_client.Event`.

    It connects on the first ``next()``. When the connection drops (the server went away, a network failure,
    no byte for ``read_timeout`` seconds: the server sends a heartbeat every 30 s by default) it reconnects by
    itself with ``Last-Event-ID`` set to the id of the last event it handed out, so the server replays exactly
    what came after it: no event is lost and none is repeated (within the server's retention, 7 days by
    default; beyond it the server says so with a ``replay.incomplete`` event, handed out like any other). It
    waits before reconnecting: the server's ``retry:`` time when it sent one, else ``reconnect_delay``,
    doubling after each failed attempt up to ``max_reconnect_delay`` (and at least a 503's ``Retry-After``).

    An answer that retrying cannot mend is raised as :class:`~warden_client.WardenError`: a 4xx (a bad
    ``types`` value is a 400), or the stream's ``error`` event (an invalid token; when the token came from a
    renewable source, one fresh token is tried first). After ``max_reconnects`` failed attempts in a row (never,
    by default) the last failure is raised.

    :meth:`close` (from any thread) ends it: the iteration stops at once, even while it waits for an event.
    Use it as a context manager to close it when done.

    Events without a cursor: a stream opened with neither ``last_event_id`` nor ``since`` starts with live
    events; one that drops before its first event resumes live too (there is no position to resume from yet).
    """

    def __init__(
        self,
        origin: Origin,
        token: Optional[TokenSource],
        *,
        types: Optional[Sequence[str]] = None,
        last_event_id: Optional[str] = None,
        since: Optional[str] = None,
        read_timeout: float = 90.0,
        reconnect_delay: float = 1.0,
        max_reconnect_delay: float = 30.0,
        max_reconnects: Optional[int] = None,
    ) -> None:
        if isinstance(types, str):
            raise TypeError("types is a sequence of event types, not one string")
        self._origin = origin
        self._token = token
        self._types = list(types) if types else []
        self._since = since
        self._read_timeout = read_timeout
        self._base_delay = reconnect_delay
        self._max_delay = max_reconnect_delay
        self._max_reconnects = max_reconnects
        self._last_event_id = last_event_id
        self._parser = SseParser()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._connection: Optional[http.client.HTTPConnection] = None
        self._generator: Optional[Iterator[Event]] = None
        self._connections = 0

    @property
    def last_event_id(self) -> Optional[str]:
        """The id the stream resumes after: that of the last event handed out (or the one it was opened with)."""
        return self._last_event_id

    @property
    def connections(self) -> int:
        """How many times the stream connected successfully (1 + the reconnections)."""
        return self._connections

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed.is_set()

    def close(self) -> None:
        """Ends the stream: closes the connection (unblocking a waiting ``next()`` in another thread), stops
        any reconnection; the iteration then ends. Safe to call more than once, from any thread."""
        self._closed.set()
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            _shut(connection)

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Event:
        if self._generator is None:
            self._generator = self._events()
        return next(self._generator)

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------------ internals

    def _events(self) -> Iterator[Event]:
        failures = 0
        renewed_token = False
        while not self._closed.is_set():
            try:
                response, sent_token = self._open()
            except Exception as failure:
                if self._closed.is_set():
                    return  # close() cut the connection while it opened
                if not isinstance(failure, (OSError, http.client.HTTPException, WardenError)):
                    raise
                if isinstance(failure, WardenError) and not _retriable(failure):
                    raise
                failures += 1
                if self._max_reconnects is not None and failures > self._max_reconnects:
                    raise
                delay = self._delay(failures)
                if isinstance(failure, WardenError) and failure.retry_after:
                    delay = max(delay, failure.retry_after)  # the server's word wins
                LOG.info("event stream: connecting failed (%s); retrying in %.1f s", failure, delay)
                self._closed.wait(delay)
                continue
            failures = 0
            self._connections += 1
            try:
                for message in self._messages(response):
                    if message.event == "error" and message.id is None:
                        error = _stream_error(message)
                        if (
                            not renewed_token
                            and self._token is not None
                            and sent_token is not None
                            and self._token.invalidate(sent_token)
                        ):
                            renewed_token = True
                            raise _Dropped("the token was refused; trying a fresh one")
                        raise error
                    renewed_token = False
                    if message.id is not None:
                        self._last_event_id = message.id
                    yield Event(message.id, message.event, _json_or_text(message.data))
                    if self._closed.is_set():
                        return
            except Exception as failure:
                if self._closed.is_set():
                    return  # close() cut the connection under the read
                if not isinstance(failure, (OSError, http.client.HTTPException, _Dropped)):
                    raise
                LOG.info("event stream: connection dropped after event %s (%s)", self._last_event_id, failure)
            finally:
                self._release()
            # The server's reconnection time (or ours) before connecting again; a fresh token at once.
            if not renewed_token:
                self._closed.wait(self._delay(1))

    def _open(self) -> Tuple[http.client.HTTPResponse, Optional[str]]:
        query: Dict[str, str] = {}
        if self._types:
            query["types"] = ",".join(self._types)
        headers = {
            "Accept": "text/event-stream",
            "Cache-Control": "no-cache",
            "User-Agent": USER_AGENT,
        }
        # A cursor: the last event handed out, else the time the caller asked for (the first connection).
        if self._last_event_id:  # an empty id resets the cursor (the SSE standard)
            headers["Last-Event-ID"] = self._last_event_id
        elif self._since is not None:
            query["since"] = self._since
        token = self._token.bearer_token() if self._token is not None else None
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        connection = self._origin.connect(self._read_timeout)
        with self._lock:
            if self._closed.is_set():
                connection.close()
                raise _Dropped("closed")
            self._connection = connection
        try:
            connection.request("GET", self._origin.target("/events/stream", query), headers=headers)
            response = connection.getresponse()
        except BaseException:
            self._release()
            raise
        if response.status != 200:
            body = response.read()
            self._release()
            raise WardenError.from_response(response.status, _header_map(response), body)
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "text/event-stream":
            self._release()
            raise WardenError(200, code="not_an_event_stream", detail=f"the answer is {kind or 'untyped'}")
        self._parser.reset()
        return response, token

    def _messages(self, response: http.client.HTTPResponse) -> Iterator[SseMessage]:
        while not self._closed.is_set():
            chunk = response.read1(65536)
            if not chunk:
                raise _Dropped("the server ended the stream")
            messages = self._parser.feed(chunk)
            if self._parser.retry_ms is not None:
                self._base_delay = self._parser.retry_ms / 1000.0
            yield from messages

    def _delay(self, failures: int) -> float:
        return min(self._max_delay, self._base_delay * (2 ** max(0, failures - 1)))

    def _release(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


def _retriable(error: WardenError) -> bool:
    return error.status in (408, 429) or error.status >= 500


def _stream_error(message: SseMessage) -> WardenError:
    data = _json_or_text(message.data)
    code = data.get("code") if isinstance(data, dict) else None
    detail = data.get("message") if isinstance(data, dict) else str(data)
    # The stream's error event stands for a refused credential (docs/events.md): a 401 inside the 200.
    return WardenError(401, code=code, detail=detail, body=data)


def _json_or_text(data: str) -> object:
    try:
        return json.loads(data)
    except ValueError:
        return data


def _header_map(response: http.client.HTTPResponse) -> Dict[str, str]:
    return {name: value for name, value in response.getheaders()}


def _shut(connection: http.client.HTTPConnection) -> None:
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    connection.close()
