"""Where a client's bearer token comes from: a fixed token, an agent's own token, or OAuth client credentials."""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Union, runtime_checkable

from ._transport import Origin, Transport
from .errors import WardenError

__all__ = ["TokenSource", "TokenLike", "StaticToken", "AgentCredentials", "ClientCredentials"]


@runtime_checkable
class TokenSource(Protocol):
    """Gives the bearer token for the next request.

    :class:`~warden_client.Warden` asks for a token before every request. When Warden answers 401 it calls
    :meth:`invalidate` with the token it sent; a source that can get another token (client credentials)
    forgets that one and answers ``True``, and the request is sent once more with a fresh token.
    """

    def bearer_token(self) -> str:
        """The token to send now."""
        ...

    def invalidate(self, token: str) -> bool:
        """Warden refused ``token``; return ``True`` if asking :meth:`bearer_token` again may give a better one."""
        ...


class StaticToken:
    """A token that never changes: the administrator's, a user's API or session token."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the token is empty")
        self._token = token

    def bearer_token(self) -> str:
        """The token."""
        return self._token

    def invalidate(self, token: str) -> bool:
        """A fixed token cannot be replaced: always ``False``."""
        return False

    def __repr__(self) -> str:
        return "StaticToken(***)"


@dataclass(frozen=True)
class AgentCredentials:
    """An agent's identity: its id and its own API token (``wdn_agt_...``, answered once by ``POST /agents`` and
    by a rotation).

    Used as a :class:`TokenSource` it sends the agent token itself. For a ``service`` agent bound to an OAuth
    client (``POST /agents/{id}/oauth-client``), :meth:`client_credentials` gives a source of short-lived
    OAuth access tokens instead, got with the agent id and token as client id and secret.
    """

    agent_id: str
    token: str = field(repr=False)

    def bearer_token(self) -> str:
        """The agent's own token."""
        return self.token

    def invalidate(self, token: str) -> bool:
        """The agent's token cannot be renewed from here (a rotation is the owner's act): always ``False``."""
        return False

    def client_credentials(
        self,
        base_url: str,
        *,
        scope: Optional[str] = None,
        resource: Optional[str] = None,
        timeout: float = 10.0,
    ) -> "ClientCredentials":
        """A source of access tokens for this agent through the client-credentials grant (docs/agents-oauth.md).

        Args:
            base_url: Warden's URL; the token endpoint is read from its authorization server metadata.
            scope: space-separated scopes to ask for (each must be held by the agent's permissions); ``None``
                asks for every scope of the resource the agent holds.
            resource: the resource the token is for; ``None`` is Warden's REST API.
            timeout: seconds for each request to the authorization server.
        """
        return ClientCredentials(
            base_url, self.agent_id, self.token, scope=scope, resource=resource, timeout=timeout
        )


class ClientCredentials:
    """OAuth 2.0 client-credentials access tokens (RFC 6749 section 4.4), cached and renewed.

    The token endpoint is ``token_endpoint`` when given, else the one named by
    ``<base_url>/.well-known/oauth-authorization-server`` (read once). The client authenticates with HTTP Basic
    (``client_secret_basic``, what Warden binds agents with). A token is kept until shortly before its
    ``expires_in`` runs out (the last fifth of its life, at most 30 seconds before), then a new one is fetched.
    Thread-safe: threads that need a token at the same moment share one request.
    """

    #: Renew this long before the token expires at most (seconds).
    MAX_RENEW_MARGIN = 30.0
    #: Renew when this share of the token's lifetime is left, if that is less than MAX_RENEW_MARGIN.
    RENEW_SHARE = 0.2

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: Optional[str] = None,
        resource: Optional[str] = None,
        token_endpoint: Optional[str] = None,
        timeout: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._base = Transport(Origin.parse(base_url), timeout)
        self._client_id = client_id
        self._client_secret = client_secret
        self._scope = scope
        self._resource = resource
        self._token_endpoint = token_endpoint
        self._token_transport: Optional[Transport] = None
        self._timeout = timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._token: Optional[str] = None
        self._renew_at = 0.0
        self._granted_scope: Optional[str] = None

    @property
    def client_id(self) -> str:
        """The OAuth client id (for an agent: the agent id)."""
        return self._client_id

    @property
    def scope(self) -> Optional[str]:
        """The scope of the current token as the server granted it, or ``None`` before the first token."""
        return self._granted_scope

    def bearer_token(self) -> str:
        """The cached access token, or a new one when there is none or it is about to expire.

        Raises:
            WardenError: the authorization server refused (``invalid_client``, ``invalid_scope``, ...).
        """
        with self._lock:
            if self._token is None or self._clock() >= self._renew_at:
                self._fetch()
            assert self._token is not None
            return self._token

    def invalidate(self, token: str) -> bool:
        """Forgets ``token`` if it is the cached one (Warden refused it: revoked, or the agent rotated); ``True``."""
        with self._lock:
            if self._token == token:
                self._token = None
        return True

    def close(self) -> None:
        """Closes the connections to the authorization server (the cached token is kept)."""
        self._base.close()
        if self._token_transport is not None:
            self._token_transport.close()

    def _fetch(self) -> None:
        endpoint = self._endpoint()
        parts = urllib.parse.urlsplit(endpoint)
        if self._token_transport is None:
            # Its own transport, without the base URL's path prefix: the endpoint is an absolute URL.
            self._token_transport = Transport(Origin.parse(f"{parts.scheme}://{parts.netloc}"), self._timeout)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        form = [("grant_type", "client_credentials")]
        if self._scope:
            form.append(("scope", self._scope))
        if self._resource:
            form.append(("resource", self._resource))
        # RFC 6749 section 2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
        user = urllib.parse.quote_plus(self._client_id, safe="")
        password = urllib.parse.quote_plus(self._client_secret, safe="")
        basic = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
        started = self._clock()
        answer = self._token_transport.request(
            "POST", target, form=form, headers={"Authorization": f"Basic {basic}"}
        )
        if not 200 <= answer.status < 300:
            raise WardenError.from_response(answer.status, answer.headers, answer.body)
        body = _json_or_text(answer.body)
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise WardenError(answer.status, code="invalid_token_response", detail="no access_token", body=body)
        expires_in = body.get("expires_in")
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) and expires_in > 0:
            margin = min(self.MAX_RENEW_MARGIN, self.RENEW_SHARE * float(expires_in))
            self._renew_at = started + float(expires_in) - margin
        else:
            self._renew_at = float("inf")  # no lifetime given: kept until Warden refuses it
        self._token = token
        scope = body.get("scope")
        self._granted_scope = scope if isinstance(scope, str) else self._scope

    def _endpoint(self) -> str:
        if self._token_endpoint is None:
            answer = self._base.request("GET", "/.well-known/oauth-authorization-server")
            if answer.status != 200:
                raise WardenError.from_response(answer.status, answer.headers, answer.body)
            metadata = _json_or_text(answer.body)
            endpoint = metadata.get("token_endpoint") if isinstance(metadata, dict) else None
            if not isinstance(endpoint, str):
                raise WardenError(answer.status, code="invalid_metadata", detail="no token_endpoint", body=metadata)
            self._token_endpoint = endpoint
        return self._token_endpoint

    def __repr__(self) -> str:
        return f"ClientCredentials(client_id={self._client_id!r}, scope={self._scope!r})"


def _json_or_text(raw: bytes) -> Any:
    """A 2xx body as JSON, or as (the start of) its text when it is not JSON, for the error that follows."""
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return raw.decode("utf-8", errors="replace")[:500]


#: What a client accepts as its credential: a bearer token, or a source of them.
TokenLike = Union[str, TokenSource]
