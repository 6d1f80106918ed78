"""The Python client that OpenAPI Generator makes from Warden's OpenAPI document, called against a running Warden.

deploy/interop/generated-clients.sh generates the client (generator ``python-pydantic-v1``, package
``warden_generated``: urllib3, python-dateutil and pydantic 1, which Debian 12 packages) into a temporary directory
and runs this file with that directory on PYTHONPATH:

    WARDEN_URL=http://localhost:18080 PYTHONPATH=<generated client> python3 check.py

The same calls as deploy/interop/generated/java/GeneratedJavaClientCheck.java, through the generated API classes, each
answer parsed into the generated pydantic models (which check required fields, types, enums and id patterns); a
property the document does not declare fails too where the model keeps it in ``additional_properties`` (the generator
gives that field to some models only: ``Agent`` and ``AuditEntry`` have it, ``IssuedAgent`` not), since the document
says responses list every property. One ``ok - <operation>`` line per step; at the first failure
``not ok - <operation>``, the error (the status and body of an HTTP error, or pydantic's message naming the field),
and exit 1.

The one call made beside the generated methods: the CSV export. The generated ``export_audit`` always sends
``Accept: application/json`` (its ``select_header_accept`` prefers JSON) and parses ``List[AuditEntry]``; so the CSV
is asked for through the generated ``ApiClient.call_api`` (its configuration, authentication and urllib3 pool) with
``Accept: text/csv``, and read with the csv module.
The server must allow private webhook targets (run.sh starts it so): a webhook to 127.0.0.1 is created and deleted.
"""

from __future__ import annotations

import csv
import io
import os
import secrets
import sys
import time
import traceback
from typing import Any, Callable, List, TypeVar

import pydantic

from warden_generated import ApiClient, Configuration
from warden_generated.api.agents_api import AgentsApi
from warden_generated.api.audit_api import AuditApi
from warden_generated.api.authorization_api import AuthorizationApi
from warden_generated.api.delegations_api import DelegationsApi
from warden_generated.api.users_api import UsersApi
from warden_generated.api.webhooks_api import WebhooksApi
from warden_generated.exceptions import ApiException
from warden_generated.models.agent_create import AgentCreate
from warden_generated.models.agent_status import AgentStatus
from warden_generated.models.agent_type import AgentType
from warden_generated.models.authorize_request import AuthorizeRequest
from warden_generated.models.delegation_create import DelegationCreate
from warden_generated.models.event_type import EventType
from warden_generated.models.permission import Permission
from warden_generated.models.sign_up_request import SignUpRequest
from warden_generated.models.webhook_create import WebhookCreate

# The header row of the CSV export, as the document's description of GET /audit/export gives it.
CSV_HEADER = ["id", "agentId", "userId", "callerId", "action", "resource", "parameters", "result", "reason",
              "durationMs", "tokensCost", "timestamp", "ip", "userAgent", "callerIp", "reasonDetail"]

T = TypeVar("T")


def step(operation: str, call: Callable[[], T]) -> T:
    """Runs one operation; on any failure prints what failed and exits 1."""
    try:
        value = call()
        strict(value, operation)
    except BaseException as error:  # noqa: B902 - any failure of the step fails the check
        print(f"not ok - {operation}", flush=True)
        print(f"generated Python client: {operation} failed: {describe(error)}", file=sys.stderr, flush=True)
        if not isinstance(error, (ApiException, AssertionError, pydantic.ValidationError)):
            traceback.print_exc()
        sys.exit(1)
    print(f"ok - {operation}", flush=True)
    return value


def describe(error: BaseException) -> str:
    if isinstance(error, ApiException):
        return f"HTTP {error.status} {error.reason}: {error.body}"
    return f"{type(error).__name__}: {error}"


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(f"expected {what}")


def strict(value: Any, where: str) -> None:
    """Fails on a property the document does not declare, anywhere in a parsed answer."""
    if isinstance(value, list):
        for item in value:
            strict(item, where)
    elif isinstance(value, pydantic.BaseModel):
        extra = getattr(value, "additional_properties", None)
        if extra:
            raise AssertionError(f"{type(value).__name__} has properties the document does not declare: "
                                 f"{sorted(extra)}")
        for name in value.__fields__:
            if name != "additional_properties":
                strict(getattr(value, name), where)


def patiently(call: Callable[[], T]) -> T:
    """Waits out a 429 (a Retry-After of at most 70 s, twice at most), as the other interop scripts do."""
    for attempt in range(3):
        try:
            return call()
        except ApiException as error:
            wait = int((error.headers or {}).get("Retry-After", "1"))
            if error.status != 429 or attempt == 2 or wait > 70:
                raise
            print(f"# 429: waiting {wait} s", flush=True)
            time.sleep(wait + 0.1)
    raise AssertionError("unreachable")


def wait_for_entry(call: Callable[[], list], audit_id: str):
    """The entry with this id, from the list the call answers, asked again for up to 10 s."""
    deadline = time.monotonic() + 10
    while True:
        entries = call()
        strict(entries, audit_id)
        for entry in entries:
            if entry.id == audit_id:
                return entry
        if time.monotonic() > deadline:
            raise AssertionError(f"expected audit entry {audit_id} among {len(entries)} entries")
        time.sleep(0.2)


def main() -> None:
    url = os.environ.get("WARDEN_URL", "").rstrip("/")
    if not url:
        print("WARDEN_URL is not set (a running warden dev)", file=sys.stderr)
        sys.exit(2)
    configuration = Configuration(host=url)
    client = ApiClient(configuration)
    users, agents, authorization = UsersApi(client), AgentsApi(client), AuthorizationApi(client)
    delegations, webhooks, audit = DelegationsApi(client), WebhooksApi(client), AuditApi(client)

    username = f"gen-py-{secrets.token_hex(5)}"

    def sign_up():
        answer = patiently(lambda: users.sign_up(
            SignUpRequest(username=username, password=f"pw-{secrets.token_urlsafe(12)}")))
        expect(answer.token.startswith("wdn_ses_"), "a session token wdn_ses_…")
        expect(answer.user.username == username, "user.username is the one signed up")
        return answer

    signed_in = step("sign_up (POST /auth/sign-up)", sign_up)
    configuration.access_token = signed_in.token
    user_id = signed_in.user.id

    def create_source():
        create = AgentCreate(owner_id=user_id, name="generated-python-source", type=AgentType.AUTONOMOUS,
                             permissions=[Permission(resource="docs:*", actions=["read"])],
                             tenant_id=None, budget=None, expires_at=None)
        issued = agents.create_agent(create)
        expect(issued.id.startswith("agt_"), f"id agt_…, got {issued.id}")
        expect(issued.token is not None and issued.token.startswith("wdn_agt_"), "token wdn_agt_…")
        expect(issued.tenant_id is None, f"tenantId null, got {issued.tenant_id!r}")
        expect(issued.budget is None, f"budget null, got {issued.budget!r}")
        expect(issued.expires_at is None, f"expiresAt null, got {issued.expires_at!r}")
        expect(issued.status == AgentStatus.ACTIVE, f"status active, got {issued.status!r}")
        expect(issued.type == AgentType.AUTONOMOUS, "type autonomous")
        expect(issued.owner_id == user_id, "ownerId is the user")
        expect(len(issued.permissions) == 1, "one permission")
        return issued

    source = step("create_agent (POST /agents, tenantId, budget and expiresAt null)", create_source)

    def create_target():
        issued = agents.create_agent(AgentCreate(owner_id=user_id, name="generated-python-target",
                                                 type=AgentType.DELEGATED))
        expect(issued.permissions == [], f"no permissions, got {issued.permissions!r}")
        return issued

    target = step("create_agent (POST /agents, a delegated agent without permissions)", create_target)

    def list_agents():
        found = agents.list_agents(limit=100)
        ids = {agent.id for agent in found}
        expect({source.id, target.id} <= ids, f"the list has {source.id} and {target.id}")
        expect(all(agent.token is None for agent in found), "no token in a list")
        return found

    step("list_agents (GET /agents)", list_agents)

    def get_agent():
        agent = agents.get_agent(source.id)
        expect(agent.id == source.id, "the same id")
        expect(agent.token is None, "no token")
        expect(agent.tenant_id is None and agent.budget is None and agent.expires_at is None,
               "tenantId, budget and expiresAt still null")
        expect(agent.permissions[0].actions == ["read"], "permission actions [read]")
        return agent

    step("get_agent (GET /agents/{id})", get_agent)

    def create_delegation():
        created = delegations.create_delegation(DelegationCreate(
            from_agent=source.id, to_agent=target.id, permissions=[Permission(resource="docs:*", actions=["read"])]))
        expect(created.id.startswith("dlg_"), f"id dlg_…, got {created.id}")
        expect(created.depth == 1, f"depth 1, got {created.depth}")
        return created

    delegation = step("create_delegation (POST /delegations)", create_delegation)

    def authorize_allowed():
        decision = authorization.authorize(AuthorizeRequest(agent_id=target.id, action="read",
                                                            resource="docs:readme", arguments={"page": 1}))
        expect(decision.allowed is True, f"allowed, got {decision}")
        expect(decision.audit_id.startswith("aud_"), "auditId aud_…")
        return decision

    allowed = step("authorize (POST /authorize, allowed through the delegation)", authorize_allowed)

    def authorize_denied():
        decision = authorization.authorize(AuthorizeRequest(agent_id=source.id, action="write",
                                                            resource="docs:readme"))
        expect(decision.allowed is False, f"denied, got {decision}")
        expect(decision.reason == "NO_MATCHING_PERMISSION", f"reason NO_MATCHING_PERMISSION, got {decision.reason}")
        return decision

    denied = step("authorize (POST /authorize, denied)", authorize_denied)

    def list_delegations():
        found = delegations.list_delegations(from_agent=source.id, limit=100)
        expect(any(d.id == delegation.id for d in found), f"the list has {delegation.id}")
        return found

    step("list_delegations (GET /delegations)", list_delegations)

    def create_webhook():
        created = webhooks.create_webhook(WebhookCreate(url="http://127.0.0.1:9/generated-python",
                                                        event_types=[EventType.BUDGET_DOT_EXCEEDED]))
        expect(created.secret.startswith("whsec_"), "secret whsec_…")
        expect(created.description is None, "description null")
        expect(created.owner_id == user_id, "ownerId is the user")
        return created

    webhook = step("create_webhook (POST /webhooks)", create_webhook)

    def list_webhooks():
        found = webhooks.list_webhooks(limit=100)
        expect(any(w.id == webhook.id for w in found), f"the list has {webhook.id}")
        expect(all(w.secret is None for w in found), "no secret in a list")
        return found

    step("list_webhooks (GET /webhooks)", list_webhooks)

    def query_audit():
        entry = wait_for_entry(lambda: audit.query_audit(agent_id=target.id, limit=100), allowed.audit_id)
        expect(entry.result == "allowed", f"result allowed, got {entry.result}")
        expect(delegation.id in (entry.delegation_chain or []),
               f"delegationChain has {delegation.id}, got {entry.delegation_chain}")
        refused = wait_for_entry(lambda: audit.query_audit(agent_id=source.id, limit=100), denied.audit_id)
        expect(refused.result == "denied", f"result denied, got {refused.result}")
        return entry

    step("query_audit (GET /audit)", query_audit)

    def export_json():
        entries = audit.export_audit(agent_id=source.id)
        expect(any(e.id == denied.audit_id for e in entries), "the export has the denial")
        return entries

    step("export_audit (GET /audit/export, JSON)", export_json)

    def export_csv():
        response = client.call_api(
            "/audit/export", "GET", path_params={}, query_params=[("agentId", source.id)],
            header_params={"Accept": "text/csv"}, auth_settings=["bearer"], response_types_map={},
            _return_http_data_only=False, _preload_content=False, _request_timeout=30)
        raw = response.raw_data
        expect(response.status_code == 200, f"200, got {response.status_code}: {raw!r}")
        content_type = (response.headers or {}).get("Content-Type", "")
        expect(content_type.startswith("text/csv"), f"Content-Type text/csv, got {content_type}")
        records: List[List[str]] = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline=""), strict=True))
        expect(bool(records), "a header row")
        header = records[0]
        expect(header == CSV_HEADER,
               f"the header row to be the document's columns {','.join(CSV_HEADER)}, got {','.join(header)}")
        for row in records:
            expect(len(row) == len(header), f"{len(header)} cells in every row, got {row}")
        result = header.index("result")
        expect(any(row[0] == denied.audit_id and row[result] == "denied" for row in records),
               f"a row for the denial {denied.audit_id}")
        return records

    step("export_audit (GET /audit/export, Accept: text/csv, through the generated ApiClient)", export_csv)

    step("delete_webhook (DELETE /webhooks/{id})", lambda: webhooks.delete_webhook(webhook.id))
    print("generated Python client: every call parsed", flush=True)


if __name__ == "__main__":
    main()
