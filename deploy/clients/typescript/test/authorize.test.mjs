// Agents, decisions and AuthZEN against the real server, as a user of the package would call them.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Warden, WardenError } from '@warden/client';
import { WARDEN_URL, signUp } from './helpers.mjs';

describe('agents, POST /authorize and AuthZEN', () => {
  let owner;
  let warden; // the owner's session
  let agent; // may read mcp:github:*
  let other; // another agent of the same owner

  before(async () => {
    owner = await signUp('authz');
    warden = new Warden({ baseUrl: WARDEN_URL, token: owner.session });
  });

  test('createAgent answers the agent with its token, once', async () => {
    agent = await warden.createAgent({
      ownerId: owner.userId,
      name: 'triage-bot',
      type: 'autonomous',
      permissions: [{ resource: 'mcp:github:*', actions: ['read'] }],
      metadata: { team: 'platform' },
    });
    assert.match(agent.id, /^agt_/);
    assert.match(agent.token, /^wdn_agt_/);
    assert.equal(agent.status, 'active');
    assert.equal(agent.ownerId, owner.userId);
    assert.deepEqual(agent.permissions, [{ resource: 'mcp:github:*', actions: ['read'] }]);
    other = await warden.createAgent({ ownerId: owner.userId, name: 'indexer', type: 'service' });
  });

  test('getAgent reads it back, without its token', async () => {
    const read = await warden.getAgent(agent.id);
    assert.equal(read.id, agent.id);
    assert.equal(read.name, 'triage-bot');
    assert.deepEqual(read.metadata, { team: 'platform' });
    assert.equal(read.token, undefined);
  });

  test('listAgents answers every agent of the owner, and filters', async () => {
    const all = await warden.listAgents();
    assert.deepEqual(all.map((a) => a.id).sort(), [agent.id, other.id].sort());
    const services = await warden.listAgents({ type: 'service' });
    assert.deepEqual(services.map((a) => a.id), [other.id]);
    assert.deepEqual(await warden.listAgents({ status: 'revoked' }), []);
  });

  test('an allowed call: allowed, no reason, an audit id', async () => {
    const decision = await warden.authorize({
      agentId: agent.id,
      action: 'read',
      resource: 'mcp:github:issues:42',
      arguments: { password: 'hunter2', issue: 42 },
      context: { ip: '203.0.113.7', userAgent: 'ts-client-test' },
    });
    assert.equal(decision.allowed, true);
    assert.equal(decision.reason, undefined);
    assert.match(decision.auditId, /^aud_/);
  });

  test('a denied call: not allowed, NO_MATCHING_PERMISSION, an audit id', async () => {
    const decision = await warden.authorize({ agentId: agent.id, action: 'write', resource: 'mcp:github:issues:42' });
    assert.equal(decision.allowed, false);
    assert.equal(decision.reason, 'NO_MATCHING_PERMISSION');
    assert.match(decision.auditId, /^aud_/);
  });

  test("the agent asks with its own token (a static agent token)", async () => {
    const self = new Warden({ baseUrl: WARDEN_URL, token: agent.token });
    const decision = await self.authorize({ agentId: agent.id, action: 'read', resource: 'mcp:github:repo:warden' });
    assert.equal(decision.allowed, true);
    // It may not ask about another agent: 404, exactly as for one that does not exist.
    const error = await self.authorize({ agentId: other.id, action: 'read', resource: 'mcp:github:x' }).catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.code, 'agent_not_found');
  });

  test('an AuthZEN batch: one decision per evaluation, in order, with reasons and audit ids', async () => {
    const answer = await warden.evaluations({
      subject: { type: 'agent', id: agent.id },
      evaluations: [
        { action: { name: 'read' }, resource: { type: 'mcp', id: 'github:issues:1' } },
        { action: { name: 'delete' }, resource: { type: 'mcp', id: 'github:issues:1' } },
        { subject: { type: 'agent', id: 'agt_nobody' }, action: { name: 'read' }, resource: { type: 'mcp', id: 'github:x' } },
        { action: { name: 'read' }, resource: { type: 'mcp', id: 'github:*' } },
      ],
      options: { warden_decision_context: 'full' },
    });
    assert.equal(answer.evaluations.length, 4);
    const [allowed, denied, unknown, pattern] = answer.evaluations;
    assert.equal(allowed.decision, true);
    assert.match(allowed.context.auditId, /^aud_/);
    assert.equal(denied.decision, false);
    assert.equal(denied.context.reason, 'NO_MATCHING_PERMISSION');
    assert.match(denied.context.auditId, /^aud_/);
    assert.equal(unknown.decision, false);
    assert.equal(unknown.context.error.status, 404);
    assert.equal(pattern.decision, false);
    assert.equal(pattern.context.error.status, 400);
  });

  test('an AuthZEN batch that stops at the first denial', async () => {
    const answer = await warden.evaluations({
      subject: { type: 'agent', id: agent.id },
      resource: { type: 'mcp', id: 'github:issues:7' },
      evaluations: [{ action: { name: 'read' } }, { action: { name: 'write' } }, { action: { name: 'read' } }],
      options: { evaluations_semantic: 'deny_on_first_deny' },
    });
    assert.deepEqual(answer.evaluations.map((e) => e.decision), [true, false]);
  });

  test('a single AuthZEN evaluation', async () => {
    const decision = await warden.evaluation({
      subject: { type: 'agent', id: agent.id },
      action: { name: 'read' },
      resource: { type: 'mcp', id: 'github:issues:9' },
    });
    assert.equal(decision.decision, true);
    assert.match(decision.context.auditId, /^aud_/);
  });

  test('revokeAgent: revoked at once, its token refused, its decisions denied', async () => {
    await warden.revokeAgent(agent.id);
    assert.equal((await warden.getAgent(agent.id)).status, 'revoked');
    assert.deepEqual((await warden.listAgents({ status: 'revoked' })).map((a) => a.id), [agent.id]);
    const self = new Warden({ baseUrl: WARDEN_URL, token: agent.token });
    const error = await self.authorize({ agentId: agent.id, action: 'read', resource: 'mcp:github:x' }).catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 401);
    const decision = await warden.authorize({ agentId: agent.id, action: 'read', resource: 'mcp:github:x' });
    assert.equal(decision.allowed, false);
    assert.equal(decision.reason, 'AGENT_REVOKED');
  });
});
