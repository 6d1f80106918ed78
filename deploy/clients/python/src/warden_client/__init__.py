"""warden_client: a Python client of Warden, the identity, authorization and audit platform for AI agents.

Standard library only. The pieces:

* :class:`Warden`: the REST API (decisions, agents, webhooks) and the event stream;
* :class:`AgentCredentials`, :class:`ClientCredentials`, :class:`StaticToken`: where the bearer token comes from;
* :class:`EventStream`: ``GET /events/stream``, resumed after a drop with ``Last-Event-ID``;
* :func:`verify_webhook` / :class:`WebhookVerifier`: Standard Webhooks signatures of deliveries;
* :class:`WardenError`, :class:`WebhookVerificationError`: what goes wrong.
"""

from ._version import __version__
from .client import Warden
from .credentials import AgentCredentials, ClientCredentials, StaticToken, TokenSource
from .errors import WardenError, WebhookVerificationError
from .models import Agent, Decision, Evaluation, Event
from .sse import EventStream, SseMessage, SseParser
from .webhooks import WebhookVerifier, verify_webhook

__all__ = [
    "__version__",
    "Warden",
    "AgentCredentials",
    "ClientCredentials",
    "StaticToken",
    "TokenSource",
    "WardenError",
    "WebhookVerificationError",
    "Agent",
    "Decision",
    "Evaluation",
    "Event",
    "EventStream",
    "SseMessage",
    "SseParser",
    "WebhookVerifier",
    "verify_webhook",
]
