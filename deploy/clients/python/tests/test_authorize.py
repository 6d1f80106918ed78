"""Decisions (POST /authorize, AuthZEN batches) and the agent helpers, against the real server."""

from __future__ import annotations

import unittest
from typing import Any, Dict

import support
from warden_client import Evaluation, Warden, WardenError

GITHUB_READ = [{"resource": "mcp:github:*", "actions": ["read"]}]


class Decisions(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.user = support.user()
        cls.agent = cls.user.new_agent("py-decisions", GITHUB_READ)
        cls.bot = Warden(support.warden_url(), token=cls.agent.credentials())

    @classmethod
    def tearDownClass(cls) -> None:
        cls.bot.close()

    def audit_entry(self, audit_id: str) -> Dict[str, Any]:
        entries = self.user.client.request("GET", "/audit", query={"agentId": self.agent.id, "limit": 100})
        matching = [e for e in entries if e["id"] == audit_id]
        self.assertEqual(len(matching), 1, f"audit entry {audit_id} in {[e['id'] for e in entries]}")
        return matching[0]

    def test_an_allowed_call_has_an_audit_entry_with_redacted_arguments(self) -> None:
        decision = self.bot.authorize(
            self.agent.id, "read", "mcp:github:issues:42",
            arguments={"password": "hunter2", "issue": 42}, context={"ip": "10.1.2.3", "userAgent": "py-test"},
        )
        self.assertTrue(decision.allowed)
        self.assertIsNone(decision.reason)
        self.assertTrue(decision.audit_id.startswith("aud_"), decision.audit_id)
        self.assertEqual(decision.raw["auditId"], decision.audit_id)
        entry = self.audit_entry(decision.audit_id)
        self.assertEqual((entry["result"], entry["action"], entry["resource"]),
                         ("allowed", "read", "mcp:github:issues:42"))
        self.assertEqual(entry["parameters"], {"password": "[REDACTED]", "issue": 42})
        self.assertEqual(entry["context"]["userAgent"], "py-test")
        self.assertEqual(entry["callerId"], self.agent.id)  # the agent asked with its own token

    def test_a_denied_call_says_why_and_is_audited_too(self) -> None:
        decision = self.bot.authorize(self.agent.id, "write", "mcp:github:issues:42")
        self.assertFalse(decision.allowed)
        self.assertEqual(decision.reason, "NO_MATCHING_PERMISSION")
        entry = self.audit_entry(decision.audit_id)
        self.assertEqual((entry["result"], entry["reason"]), ("denied", "NO_MATCHING_PERMISSION"))

    def test_the_owner_may_ask_for_its_agent(self) -> None:
        decision = self.user.client.authorize(self.agent.id, "read", "mcp:github:pulls:7")
        self.assertTrue(decision.allowed)
        self.assertEqual(self.audit_entry(decision.audit_id)["callerId"], self.user.id)

    def test_a_batch_through_authzen_decides_each_in_order(self) -> None:
        owner_token = self.user.client  # a user's session may evaluate the agents it owns
        decisions = owner_token.authorize_many([
            Evaluation(self.agent.id, "read", "mcp:github:issues:1"),
            Evaluation(self.agent.id, "delete", "mcp:github:issues:1"),
            Evaluation("agt_00000000000000000000000000", "read", "mcp:github:issues:1"),
        ])
        self.assertEqual([d.allowed for d in decisions], [True, False, False])
        self.assertEqual(decisions[1].reason, "NO_MATCHING_PERMISSION")
        for decision in decisions[:2]:
            self.assertEqual(self.audit_entry(decision.audit_id)["resource"], "mcp:github:issues:1")
        self.assertEqual(decisions[2].error["status"], 404)  # not decided: nothing told about the agent
        self.assertIsNone(decisions[2].audit_id)

    def test_deny_on_first_deny_stops_the_batch(self) -> None:
        decisions = self.bot.authorize_many(
            [Evaluation(self.agent.id, "write", "mcp:github:a"), Evaluation(self.agent.id, "read", "mcp:github:b")],
            semantic="deny_on_first_deny",
        )
        self.assertEqual([d.allowed for d in decisions], [False])

    def test_a_resource_authzen_cannot_name_is_refused_before_sending(self) -> None:
        with self.assertRaises(ValueError):
            self.bot.authorize_many([Evaluation(self.agent.id, "read", "agents")])


class AgentHelpers(unittest.TestCase):
    def setUp(self) -> None:
        self.user = support.user()

    def test_create_get_list_revoke(self) -> None:
        agent = self.user.client.create_agent(
            self.user.id, "py-lifecycle", "autonomous", GITHUB_READ,
            expires_at="2031-01-01T00:00:00Z", metadata={"team": "py"},
        )
        self.assertTrue(agent.id.startswith("agt_"))
        self.assertTrue(agent.token.startswith("wdn_agt_"))
        self.assertNotIn(agent.token, repr(agent))  # a token is never printed
        self.assertNotIn(agent.token, repr(agent.credentials()))
        read = self.user.client.get_agent(agent.id)
        self.assertEqual((read.name, read.status, read.metadata), ("py-lifecycle", "active", {"team": "py"}))
        self.assertIsNone(read.token)  # shown once, at creation
        self.assertIn(agent.id, [a.id for a in self.user.client.list_agents(status="active")])

        self.user.client.revoke_agent(agent.id)
        self.assertEqual(self.user.client.get_agent(agent.id).status, "revoked")
        self.assertNotIn(agent.id, [a.id for a in self.user.client.list_agents(status="active")])
        denied = self.user.client.authorize(agent.id, "read", "mcp:github:x")
        self.assertEqual((denied.allowed, denied.reason), (False, "AGENT_REVOKED"))
        with Warden(support.warden_url(), token=agent.credentials()) as bot:  # its own token is dead too
            with self.assertRaises(WardenError) as caught:
                bot.authorize(agent.id, "read", "mcp:github:x")
        self.assertEqual(caught.exception.status, 401)

    def test_rotation_replaces_the_token(self) -> None:
        agent = self.user.new_agent("py-rotate", GITHUB_READ)
        rotated = self.user.client.rotate_agent(agent.id)
        self.assertNotEqual(rotated.token, agent.token)
        with Warden(support.warden_url(), token=rotated.credentials()) as bot:
            self.assertTrue(bot.authorize(agent.id, "read", "mcp:github:x").allowed)
        with Warden(support.warden_url(), token=agent.credentials()) as old, self.assertRaises(WardenError) as caught:
            old.authorize(agent.id, "read", "mcp:github:x")
        self.assertEqual(caught.exception.status, 401)

    def test_an_organizations_agents_come_page_after_page(self) -> None:
        owner = support.user("org")
        org = owner.client.request("POST", "/admin/v1/organizations", body={"name": "py-client-org"})
        created = {owner.new_agent(f"py-org-{i}", GITHUB_READ).id for i in range(5)}
        listed = [a.id for a in owner.client.iter_organization_agents(org["id"], page_size=2)]
        self.assertEqual(len(listed), len(set(listed)), "no agent twice across pages")
        self.assertEqual(set(listed), created)


if __name__ == "__main__":
    unittest.main()
