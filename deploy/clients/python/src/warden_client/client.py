"""The client: Warden's REST API as Python calls."""

from __future__ import annotations

import urllib.parse
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

from ._transport import Origin, QueryValue, Response, Transport
from .credentials import StaticToken, TokenLike, TokenSource
from .errors import WardenError
from .models import Agent, Decision, Evaluation
from .sse import EventStream

__all__ = ["Warden"]

#: The AuthZEN batch semantics (docs/authzen.md).
EVALUATION_SEMANTICS = ("execute_all", "deny_on_first_deny", "permit_on_first_permit")


class Warden:
    """A client of one Warden server.

    Every call sends JSON, reads JSON, and raises :class:`~warden_client.WardenError` for any answer outside
    2xx. Requests of one thread share a keep-alive connection; a client may be shared between threads.

    Args:
        base_url: the server, e.g. ``http://localhost:8080`` (a path prefix is kept: ``https://host/warden``).
        token: the credential sent as ``Authorization: Bearer``: a token string (the administrator's, a user's
            API or session token, an agent's ``wdn_agt_...``), or a :class:`~warden_client.TokenSource` such as
            :class:`~warden_client.AgentCredentials` or :class:`~warden_client.ClientCredentials`. ``None``
            sends none (public routes only).
        timeout: seconds to connect and for each read of an answer.

    Example::

        warden = Warden("http://localhost:8080", token=agent_credentials)
        decision = warden.authorize(agent_credentials.agent_id, "read", "mcp:github:issues:42")
        if not decision.allowed:
            print(decision.reason, decision.audit_id)
    """

    def __init__(self, base_url: str, token: Optional[TokenLike] = None, timeout: float = 10.0) -> None:
        self._origin = Origin.parse(base_url)
        self._transport = Transport(self._origin, timeout)
        self._tokens: Optional[TokenSource] = StaticToken(token) if isinstance(token, str) else token
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    # ------------------------------------------------------------------------------------------------ plumbing

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: Optional[Mapping[str, QueryValue]] = None,
        headers: Optional[Mapping[str, str]] = None,
        authenticated: bool = True,
    ) -> Any:
        """Sends one request to any route and returns the answer's JSON (``None`` for an empty answer, a 204).

        Args:
            method: ``GET``, ``POST``, ...
            path: the route, ``/agents/agt_...`` (escape path parameters yourself, or use the helpers).
            body: sent as JSON when not ``None``.
            query: query parameters; ``None`` values are left out, booleans are ``true``/``false``.
            headers: extra request headers.
            authenticated: ``False`` sends no ``Authorization`` (sign-up, discovery).

        Raises:
            WardenError: any answer outside 2xx. When Warden answers 401 to a token from a renewable source
                (client credentials), the request is first sent once more with a fresh token.
        """
        return _json(self._send(method, path, body=body, query=query, headers=headers, authenticated=authenticated))

    def close(self) -> None:
        """Closes the client's connections (every thread's). The client stays usable: it reconnects."""
        self._transport.close()

    def __enter__(self) -> "Warden":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Warden({self.base_url!r})"

    # --------------------------------------------------------------------------------------------- decisions

    def authorize(
        self,
        agent_id: str,
        action: str,
        resource: str,
        arguments: Optional[Mapping[str, Any]] = None,
        context: Optional[Mapping[str, Any]] = None,
    ) -> Decision:
        """Asks whether ``agent_id`` may perform ``action`` on ``resource`` (``POST /authorize``).

        A denial is a :class:`~warden_client.Decision` with ``allowed=False`` and a ``reason``, not an
        exception; every decision, either way, has its ``audit_id`` (docs/authorization.md).

        Args:
            agent_id: the agent (``agt_...``); the agent itself, its owner or the administrator may ask.
            action: the action, 1 to 128 characters.
            resource: a concrete resource (``:``-separated segments, no ``*``), e.g. ``mcp:github:issues:42``.
            arguments: the call's arguments: conditions read them, the audit entry records them (secret-like
                keys redacted).
            context: ``{"ip", "userAgent"}`` as the caller declares them.

        Raises:
            WardenError: the request was refused (400 naming bad fields; 404 ``agent_not_found`` for an agent
                the caller may not see; 503 ``unavailable`` when the decision could not be audited).
        """
        body: Dict[str, Any] = {"agentId": agent_id, "action": action, "resource": resource}
        if arguments is not None:
            body["arguments"] = dict(arguments)
        if context is not None:
            body["context"] = dict(context)
        return Decision.from_authorize(self.request("POST", "/authorize", body=body))

    def authorize_many(
        self,
        evaluations: Sequence[Evaluation],
        semantic: str = "execute_all",
    ) -> List[Decision]:
        """Decides a batch through AuthZEN ``POST /access/v1/evaluations`` (docs/authzen.md): one request, one
        audited decision per evaluation, answered in order.

        ``semantic`` is AuthZEN's ``evaluations_semantic``: ``execute_all`` decides every evaluation;
        ``deny_on_first_deny`` and ``permit_on_first_permit`` stop at the first denial or permit, so the list
        is then shorter than the batch (it ends with the decision that stopped it). Each decision carries its
        reason and audit id. An evaluation Warden could not decide (an agent the caller may not see, a
        resource with a ``*``) is a denial whose ``error`` says why, not an exception.

        Raises:
            ValueError: an unknown ``semantic``, or a resource that is not ``type:id``.
            WardenError: the batch as a whole was refused.
        """
        if semantic not in EVALUATION_SEMANTICS:
            raise ValueError(f"semantic is one of {', '.join(EVALUATION_SEMANTICS)}, not {semantic!r}")
        items = [evaluation.to_authzen() for evaluation in evaluations]
        if not items:
            return []
        body = {
            "evaluations": items,
            "options": {"evaluations_semantic": semantic, "warden_decision_context": "full"},
        }
        answer = self.request("POST", "/access/v1/evaluations", body=body)
        results = answer.get("evaluations") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise WardenError(200, code="unexpected_answer", detail="no evaluations in the answer", body=answer)
        return [Decision.from_authzen(item) for item in results]

    # ------------------------------------------------------------------------------------------------ agents

    def create_agent(
        self,
        owner_id: str,
        name: str,
        type: str,
        permissions: Sequence[Mapping[str, Any]],
        *,
        tenant_id: Optional[str] = None,
        expires_at: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        budget: Optional[Mapping[str, Any]] = None,
    ) -> Agent:
        """Registers an agent (``POST /agents``); the answer carries its token, once (``agent.credentials()``).

        Args:
            owner_id: the owning user (a user may create agents for themselves only).
            name: 1 to 200 characters.
            type: ``autonomous``, ``delegated`` or ``service`` (only a ``service`` agent can use client
                credentials).
            permissions: grants, ``{"resource": "mcp:github:*", "actions": ["read"], "constraints"?: {...}}``.
            tenant_id: an organization id or a free label (default: the owner's active organization).
            expires_at: ISO 8601 with a zone offset, in the future.
            metadata: free-form (``authzen.subject`` names the agent to AuthZEN gateways).
            budget: ``{"maxCostUsd", "period"}``.
        """
        body: Dict[str, Any] = {
            "ownerId": owner_id,
            "name": name,
            "type": type,
            "permissions": [dict(p) for p in permissions],
        }
        for key, value in (("tenantId", tenant_id), ("expiresAt", expires_at)):
            if value is not None:
                body[key] = value
        if metadata is not None:
            body["metadata"] = dict(metadata)
        if budget is not None:
            body["budget"] = dict(budget)
        return Agent.from_json(self.request("POST", "/agents", body=body))

    def get_agent(self, agent_id: str) -> Agent:
        """Reads one agent (``GET /agents/{id}``); 404 ``agent_not_found`` also for one the caller may not see."""
        return Agent.from_json(self.request("GET", f"/agents/{_segment(agent_id)}"))

    def list_agents(
        self,
        *,
        status: Optional[str] = None,
        type: Optional[str] = None,
        tenant_id: Optional[str] = None,
    ) -> List[Agent]:
        """The agents the caller may see (``GET /agents``), filtered; oldest first.

        ``GET /agents`` is not paged: one answer holds every match. (An organization's agents are paged:
        :meth:`iter_organization_agents` follows those pages.)
        """
        answer = self.request("GET", "/agents", query={"status": status, "type": type, "tenantId": tenant_id})
        return [Agent.from_json(item) for item in answer]

    def iter_organization_agents(
        self,
        org_id: str,
        *,
        status: Optional[str] = None,
        type: Optional[str] = None,
        page_size: int = 50,
    ) -> Iterator[Agent]:
        """Every agent of an organization (``GET /admin/v1/organizations/{id}/agents``), newest first, fetching
        page after page (``limit``, following ``nextCursor``) as the iteration goes on."""
        if not 1 <= page_size <= 200:
            raise ValueError("page_size is 1 to 200")
        path = f"/admin/v1/organizations/{_segment(org_id)}/agents"
        cursor: Optional[str] = None
        while True:
            query: Dict[str, QueryValue] = {"status": status, "type": type, "limit": page_size, "cursor": cursor}
            page = self.request("GET", path, query=query)
            for item in page.get("items", []):
                yield Agent.from_json(item)
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def rotate_agent(self, agent_id: str) -> Agent:
        """Issues the agent a new token (``POST /agents/{id}/rotate``); the old one stops at once. The answer
        carries the new token, once."""
        return Agent.from_json(self.request("POST", f"/agents/{_segment(agent_id)}/rotate"))

    def revoke_agent(self, agent_id: str) -> None:
        """Revokes an agent (``DELETE /agents/{id}``): permanent; its delegations and tokens end at once."""
        self.request("DELETE", f"/agents/{_segment(agent_id)}")

    def bind_oauth_client(self, agent_id: str) -> Dict[str, Any]:
        """Binds a ``service`` agent to an OAuth client (``POST /agents/{id}/oauth-client``): client id = agent
        id, secret = the agent's token; then ``AgentCredentials.client_credentials`` gets it access tokens.
        Returns ``{client_id, agentId, token_endpoint, grant_types, ...}``."""
        return self.request("POST", f"/agents/{_segment(agent_id)}/oauth-client")

    # ---------------------------------------------------------------------------------------------- webhooks

    def create_webhook(
        self,
        url: str,
        event_types: Optional[Sequence[str]] = None,
        description: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Subscribes an endpoint (``POST /webhooks``). The answer holds the signing ``secret``, once: keep it
        for :func:`~warden_client.verify_webhook`. ``event_types`` ``None`` or empty: every type."""
        body: Dict[str, Any] = {"url": url}
        if event_types:
            body["eventTypes"] = list(event_types)
        if description is not None:
            body["description"] = description
        return self.request("POST", "/webhooks", body=body)

    def delete_webhook(self, webhook_id: str) -> None:
        """Deletes an endpoint (``DELETE /webhooks/{id}``); its pending deliveries are not sent."""
        self.request("DELETE", f"/webhooks/{_segment(webhook_id)}")

    # ------------------------------------------------------------------------------------------------ events

    def stream(
        self,
        types: Optional[Sequence[str]] = None,
        last_event_id: Optional[str] = None,
        *,
        since: Optional[str] = None,
        read_timeout: float = 90.0,
        reconnect_delay: float = 1.0,
        max_reconnect_delay: float = 30.0,
        max_reconnects: Optional[int] = None,
    ) -> EventStream:
        """The event stream (``GET /events/stream``) as an iterator of :class:`~warden_client.Event` that
        resumes by itself after a dropped connection, losing and repeating nothing (see
        :class:`~warden_client.EventStream`). It connects on the first ``next()``.

        Args:
            types: only these event types (``["audit", "agent.revoked"]``); an unknown type is a 400.
            last_event_id: start after this event id (exclusive); ``"-1"`` replays every retained event.
            since: start at this time (ISO 8601, inclusive) when there is no ``last_event_id``.
            read_timeout: seconds without a byte (event or heartbeat) after which the connection counts as
                dropped; keep it above the server's heartbeat interval (30 s by default).
            reconnect_delay: the wait before reconnecting when the server sent no ``retry:``; doubles after
                each failed attempt.
            max_reconnect_delay: the longest wait between attempts.
            max_reconnects: failed attempts in a row before the failure is raised; ``None``: never give up.

        Example::

            with warden.stream(types=["audit"]) as events:
                for event in events:
                    print(event.id, event.type, event.payload)
        """
        return EventStream(
            self._origin,
            self._tokens,
            types=types,
            last_event_id=last_event_id,
            since=since,
            read_timeout=read_timeout,
            reconnect_delay=reconnect_delay,
            max_reconnect_delay=max_reconnect_delay,
            max_reconnects=max_reconnects,
        )

    # ------------------------------------------------------------------------------------------------ internals

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: Any,
        query: Optional[Mapping[str, QueryValue]],
        headers: Optional[Mapping[str, str]],
        authenticated: bool,
    ) -> Response:
        source = self._tokens if authenticated else None
        for attempt in (1, 2):
            send_headers: Dict[str, str] = dict(headers or {})
            token = source.bearer_token() if source is not None else None
            if token is not None:
                send_headers["Authorization"] = f"Bearer {token}"
            answer = self._transport.request(method, path, query=query, json_body=body, headers=send_headers)
            if 200 <= answer.status < 300:
                return answer
            if answer.status == 401 and attempt == 1 and source is not None and token is not None:
                if source.invalidate(token):
                    continue  # a 401 did nothing: safe to send again with a fresh token
            raise WardenError.from_response(answer.status, answer.headers, answer.body)
        raise AssertionError("unreachable")  # pragma: no cover


def _json(answer: Response) -> Any:
    try:
        return answer.json()
    except ValueError as error:
        raise WardenError(
            answer.status, code="malformed_answer", detail=f"the answer is not JSON: {error}",
            body=answer.body.decode("utf-8", errors="replace")[:500],
        ) from error


def _segment(value: str) -> str:
    """A path parameter, escaped so that it stays one segment."""
    if not value:
        raise ValueError("an id is empty")
    return urllib.parse.quote(value, safe="")
