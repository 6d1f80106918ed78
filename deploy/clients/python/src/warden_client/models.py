"""The values the client hands back: decisions, agents and stream events, each with the JSON it was read from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from .credentials import AgentCredentials

__all__ = ["Decision", "Evaluation", "Agent", "Event"]


@dataclass(frozen=True)
class Decision:
    """Whether an agent may perform an action on a resource, as Warden decided it (and audited it).

    Attributes:
        allowed: the decision.
        reason: on a denial, why (``NO_MATCHING_PERMISSION``, ``AGENT_SUSPENDED``, ``RATE_LIMITED``,
            ``CONDITION_NOT_MET``, ``APPROVAL_REQUIRED``, ...; docs/authorization.md); ``None`` when allowed.
        audit_id: the audit entry written for this decision (``aud_...``); ``None`` only for an AuthZEN item
            that could not be decided (see ``error``) or was answered without its context.
        approval_id: for ``APPROVAL_REQUIRED``, the approval request to wait on (``apr_...``).
        retry_after: for ``RATE_LIMITED``, seconds to the next UTC hour.
        error: for an AuthZEN item Warden could not decide, ``{"status", "message"}`` (such an item is a denial).
        raw: the JSON object the decision was read from.
    """

    allowed: bool
    reason: Optional[str] = None
    audit_id: Optional[str] = None
    approval_id: Optional[str] = None
    retry_after: Optional[int] = None
    error: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_authorize(cls, body: Mapping[str, Any]) -> "Decision":
        """Reads the answer of ``POST /authorize``: ``{"allowed", "reason"?, "retryAfter"?, "approvalId"?,
        "auditId"}``."""
        return cls(
            allowed=body.get("allowed") is True,
            reason=body.get("reason"),
            audit_id=body.get("auditId"),
            approval_id=body.get("approvalId"),
            retry_after=body.get("retryAfter"),
            raw=dict(body),
        )

    @classmethod
    def from_authzen(cls, item: Mapping[str, Any]) -> "Decision":
        """Reads one AuthZEN decision: ``{"decision", "context"?: {"reason", "auditId", "approvalId",
        "retryAfter", "error"}}``."""
        context = item.get("context")
        context = context if isinstance(context, Mapping) else {}
        error = context.get("error")
        return cls(
            allowed=item.get("decision") is True,
            reason=context.get("reason"),
            audit_id=context.get("auditId"),
            approval_id=context.get("approvalId"),
            retry_after=context.get("retryAfter"),
            error=dict(error) if isinstance(error, Mapping) else None,
            raw=dict(item),
        )


@dataclass(frozen=True)
class Evaluation:
    """One question of a batch (:meth:`~warden_client.Warden.authorize_many`): may ``agent_id`` perform
    ``action`` on ``resource``?

    Attributes:
        agent_id: the agent (``agt_...``).
        action: the action name.
        resource: a concrete resource, ``type:id`` (``mcp:github:issues:42``); it needs at least one ``:``,
            as AuthZEN names a resource by a type and an id.
        context: the AuthZEN request context; conditions read it as ``context`` (docs/authzen.md).
    """

    agent_id: str
    action: str
    resource: str
    context: Optional[Mapping[str, Any]] = None

    def to_authzen(self) -> Dict[str, Any]:
        """The AuthZEN evaluation object: subject ``{type: agent, id}``, action ``{name}``, resource ``{type, id}``."""
        kind, sep, ident = self.resource.partition(":")
        if not sep or not kind or not ident:
            raise ValueError(f"an AuthZEN resource is 'type:id', got {self.resource!r}")
        item: Dict[str, Any] = {
            "subject": {"type": "agent", "id": self.agent_id},
            "action": {"name": self.action},
            "resource": {"type": kind, "id": ident},
        }
        if self.context is not None:
            item["context"] = dict(self.context)
        return item


@dataclass(frozen=True)
class Agent:
    """An agent identity as Warden shows it (docs: README "A 5-minute tour"; OpenAPI ``Agent``).

    ``token`` is set only on the answers to create and rotate, which show it once; keep it then.
    """

    id: str
    owner_id: str
    name: str
    type: str
    status: str
    permissions: List[Dict[str, Any]]
    tenant_id: Optional[str] = None
    expires_at: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    token: Optional[str] = field(default=None, repr=False)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> "Agent":
        """Reads an ``Agent`` (or ``IssuedAgent``) object."""
        return cls(
            id=body["id"],
            owner_id=body.get("ownerId", ""),
            name=body.get("name", ""),
            type=body.get("type", ""),
            status=body.get("status", ""),
            permissions=list(body.get("permissions") or []),
            tenant_id=body.get("tenantId"),
            expires_at=body.get("expiresAt"),
            metadata=dict(body.get("metadata") or {}),
            created_at=body.get("createdAt"),
            updated_at=body.get("updatedAt"),
            token=body.get("token"),
            raw=dict(body),
        )

    def credentials(self) -> AgentCredentials:
        """The agent's id and token, to act as the agent (``Warden(url, token=agent.credentials())``).

        Raises:
            ValueError: this answer carried no token (only create and rotate answers do).
        """
        if not self.token:
            raise ValueError(f"no token for {self.id}: only the answers to create and rotate carry it")
        return AgentCredentials(self.id, self.token)


@dataclass(frozen=True)
class Event:
    """One event of the server-sent event stream (docs/events.md, "The SSE stream").

    Attributes:
        id: the SSE ``id:`` (``"R"``, or ``"R.i"`` for an ``audit`` event of a batch); ``None`` for a control
            event (``replay.incomplete``), which has no place in the stream.
        type: the SSE ``event:`` (``agent.created``, ``audit``, ``replay.incomplete``, ...); ``message`` when
            the server named none.
        data: the ``data:`` parsed as JSON. For Warden's events it is the whole event,
            ``{"id", "type", "timestamp", "data", "agentId"?, "userId"?}``; for a ``replay.incomplete`` control
            event ``{"reason", "after", "missedThrough"}``. Data that is not JSON is kept as the text.
    """

    id: Optional[str]
    type: str
    data: Any

    @property
    def payload(self) -> Any:
        """The event's own ``data`` member (the agent, the audit entry, ...), or ``None`` when there is none."""
        return self.data.get("data") if isinstance(self.data, dict) else None
