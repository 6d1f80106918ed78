"""Verifying Warden's webhook deliveries, per Standard Webhooks (docs/webhooks.md, "Deliveries")."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, List, Mapping, Optional, Union

from .errors import WebhookVerificationError

__all__ = ["WebhookVerifier", "verify_webhook"]

_SECRET_PREFIX = "whsec_"


class WebhookVerifier:
    """Checks that a delivery was signed with an endpoint's secret, recently.

    A delivery carries ``webhook-id``, ``webhook-timestamp`` (Unix seconds) and ``webhook-signature``: one or
    more space-separated ``v1,<base64 HMAC-SHA256>`` of ``<webhook-id>.<webhook-timestamp>.<body>``, keyed with
    the base64-decoded part of the secret after ``whsec_``. A delivery verifies when one ``v1`` signature
    matches (compared in constant time) and the timestamp is within ``tolerance`` seconds of now, either way.
    Signatures of other versions are ignored.
    """

    def __init__(self, secret: str, tolerance: float = 300) -> None:
        """
        Args:
            secret: the endpoint's secret as ``POST /webhooks`` answered it (``whsec_<base64>``).
            tolerance: how far, in seconds, the timestamp may be from now (Standard Webhooks uses 5 minutes).

        Raises:
            WebhookVerificationError: the secret is not ``whsec_`` and base64.
        """
        encoded = secret[len(_SECRET_PREFIX):] if secret.startswith(_SECRET_PREFIX) else secret
        try:
            self._key = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as error:
            raise WebhookVerificationError("the secret is not whsec_ followed by base64") from error
        if not self._key:
            raise WebhookVerificationError("the secret is empty")
        self._tolerance = tolerance

    def verify(
        self,
        headers: Mapping[str, str],
        body: Union[bytes, str],
        now: Optional[float] = None,
    ) -> Any:
        """Verifies one delivery and returns its body parsed as JSON (the event).

        Args:
            headers: the request's headers; names are matched case-insensitively (a dict, or the
                ``http.server`` / ``email.message`` header object).
            body: the raw body exactly as received (bytes; a ``str`` is encoded as UTF-8). Verify before
                parsing: re-serialised JSON would not match.
            now: the current Unix time, for tests; ``time.time()`` when ``None``.

        Raises:
            WebhookVerificationError: a header is missing, the timestamp is not an integer or out of
                tolerance, no signature matches, or the body is not JSON.
        """
        message_id = _header(headers, "webhook-id")
        timestamp = _header(headers, "webhook-timestamp")
        signatures = _header(headers, "webhook-signature")
        if not message_id or not timestamp or not signatures:
            raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
        try:
            sent_at = int(timestamp.strip())
        except ValueError:
            raise WebhookVerificationError("webhook-timestamp is not a whole number of seconds") from None
        current = time.time() if now is None else now
        if sent_at < current - self._tolerance:
            raise WebhookVerificationError("the delivery is too old (webhook-timestamp out of tolerance)")
        if sent_at > current + self._tolerance:
            raise WebhookVerificationError("the delivery is from the future (webhook-timestamp out of tolerance)")
        raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        signed = message_id.encode("utf-8") + b"." + timestamp.encode("utf-8") + b"." + raw
        expected = hmac.new(self._key, signed, hashlib.sha256).digest()
        if not any(hmac.compare_digest(expected, candidate) for candidate in _v1_signatures(signatures)):
            raise WebhookVerificationError("no signature matches")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise WebhookVerificationError("the signed body is not JSON") from error


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: Union[bytes, str],
    tolerance: float = 300,
    now: Optional[float] = None,
) -> Any:
    """Verifies a webhook delivery with the endpoint's secret and returns the event (the parsed body).

    The same as ``WebhookVerifier(secret, tolerance).verify(headers, body, now)``; see
    :class:`WebhookVerifier`.

    Raises:
        WebhookVerificationError: on any mismatch or a timestamp out of tolerance.
    """
    return WebhookVerifier(secret, tolerance).verify(headers, body, now=now)


def _v1_signatures(header: str) -> List[bytes]:
    """The decoded ``v1`` signatures of a ``webhook-signature`` value; malformed entries are skipped."""
    found: List[bytes] = []
    for entry in header.split():
        version, sep, encoded = entry.partition(",")
        if version != "v1" or not sep:
            continue
        try:
            found.append(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            continue
    return found


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    value = headers.get(name)
    if value is not None:
        return value
    for key, candidate in headers.items():
        if key.lower() == name:
            return candidate
    return None
