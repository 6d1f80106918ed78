"""The errors the client raises.

Every answer of Warden outside 2xx becomes a :class:`WardenError`; nothing is swallowed. Network failures
(refused connections, timeouts) are raised as the standard library raises them (:class:`OSError` and its
subclasses, :class:`http.client.HTTPException`), so they are never mistaken for an answer of the server.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, List, Mapping, Optional

__all__ = ["WardenError", "WebhookVerificationError"]


class WardenError(Exception):
    """An answer of Warden outside 2xx, with what the answer said.

    Warden answers errors in three shapes, all read here:

    * RFC 9457 problems (``application/problem+json``, docs/errors.md): ``code``, ``detail``, ``errors``
      (``[{"field", "message"}]``, one per bad field) and ``requestId``;
    * the rate limiter's 429 body, ``{"error": {"code": "RATE_LIMIT_EXCEEDED", "message", "details"}}``;
    * OAuth errors of the token endpoint, ``{"error": "invalid_client", "error_description": ...}``.

    Attributes:
        status: the HTTP status (for an SSE ``error`` event, which arrives inside a 200, 401).
        code: the stable error code (``validation_invalid``, ``agent_not_found``, ``invalid_scope``,
            ``RATE_LIMIT_EXCEEDED``, ...), or ``None`` when the body named none.
        detail: the human-readable explanation, or ``None``.
        errors: the fields at fault (``[{"field": ..., "message": ...}]``); empty when none were named.
        request_id: the request's id (the problem's ``requestId``, else the ``X-Request-Id`` header).
        body: the body as parsed JSON, or as text when it was not JSON, or ``None`` when empty.
        retry_after: seconds to wait before trying again (from ``Retry-After``; set on 429 and 503), or ``None``.
    """

    def __init__(
        self,
        status: int,
        code: Optional[str] = None,
        detail: Optional[str] = None,
        errors: Optional[List[Dict[str, Any]]] = None,
        request_id: Optional[str] = None,
        body: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.errors: List[Dict[str, Any]] = list(errors or [])
        self.request_id = request_id
        self.body = body
        self.retry_after = retry_after
        super().__init__(self._message())

    def _message(self) -> str:
        text = f"{self.status} {self.code or 'error'}"
        if self.detail:
            text += f": {self.detail}"
        if self.errors:
            fields = "; ".join(f"{e.get('field')}: {e.get('message')}" for e in self.errors if isinstance(e, dict))
            if fields:
                text += f" [{fields}]"
        if self.request_id:
            text += f" (request {self.request_id})"
        return text

    @classmethod
    def from_response(cls, status: int, headers: Mapping[str, str], raw: bytes) -> "WardenError":
        """Builds the error from an HTTP answer: its status, headers (case-insensitive lookup) and raw body."""
        body: Any = None
        if raw:
            text = raw.decode("utf-8", errors="replace")
            try:
                body = json.loads(text)
            except ValueError:
                body = text
        code: Optional[str] = None
        detail: Optional[str] = None
        errors: List[Dict[str, Any]] = []
        request_id: Optional[str] = None
        if isinstance(body, dict):
            error = body.get("error")
            if isinstance(error, dict):  # the rate limiter's 429
                code = _text(error.get("code"))
                detail = _text(error.get("message"))
            elif isinstance(error, str):  # OAuth (RFC 6749 section 5.2)
                code = error
                detail = _text(body.get("error_description"))
            else:  # problem+json
                code = _text(body.get("code"))
                detail = _text(body.get("detail")) or _text(body.get("title"))
                listed = body.get("errors")
                if isinstance(listed, list):
                    errors = [e for e in listed if isinstance(e, dict)]
            request_id = _text(body.get("requestId"))
        elif isinstance(body, str) and body.strip():
            detail = body.strip()[:500]
        if request_id is None:
            request_id = _header(headers, "X-Request-Id")
        return cls(
            status,
            code=code,
            detail=detail,
            errors=errors,
            request_id=request_id,
            body=body,
            retry_after=parse_retry_after(_header(headers, "Retry-After")),
        )


class WebhookVerificationError(Exception):
    """A webhook delivery that does not verify: a header missing, no matching signature, a timestamp out of
    tolerance, a malformed secret, or a body that is not JSON. Reject the delivery (answer 4xx)."""


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds from a ``Retry-After`` value: delay-seconds or an HTTP date; ``None`` when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    value = headers.get(name)
    if value is not None:
        return value
    lowered = name.lower()
    for key, candidate in headers.items():
        if key.lower() == lowered:
            return candidate
    return None
