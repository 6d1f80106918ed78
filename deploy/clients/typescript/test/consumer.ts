// Type-checked (never run) against the installed package by deploy/interop/typescript-client.sh: the types a user
// gets from '@warden/client' are the contract's, and they refuse what the contract refuses.
import {
  type Agent,
  type AuthorizationDecision,
  type DenialReason,
  type StreamEvent,
  type WardenEvent,
  Warden,
  WardenError,
  verifyWebhook,
} from '@warden/client';

export async function consumer(): Promise<void> {
  const warden = new Warden({ baseUrl: 'http://localhost:8080', token: 'wdn_agt_x' });
  const decision: AuthorizationDecision = await warden.authorize({
    agentId: 'agt_x',
    action: 'read',
    resource: 'mcp:github:issues:42',
    arguments: { issue: 42 },
    context: { ip: '203.0.113.7' },
  });
  const reason: DenialReason | undefined = decision.reason;
  const auditId: string = decision.auditId;
  void reason;
  void auditId;

  // @ts-expect-error `agentID` is not a field of the contract's AuthorizeRequest
  await warden.authorize({ agentID: 'agt_x', action: 'read', resource: 'r' });
  // @ts-expect-error a reason outside the contract's enum
  const wrong: DenialReason = 'BECAUSE';
  void wrong;

  // @ts-expect-error a token and client credentials together
  new Warden({ baseUrl: 'http://x', token: 't', credentials: { clientId: 'agt_x', clientSecret: 's' } });
  new Warden({ baseUrl: 'http://x', credentials: { clientId: 'agt_x', clientSecret: 's', scope: ['authorize:write'] } });

  const agents: Agent[] = await warden.listAgents({ status: 'active', type: 'service' });
  // @ts-expect-error a status outside the contract's enum
  await warden.listAgents({ status: 'sleeping' });
  const created = await warden.createAgent({ ownerId: 'usr_x', name: 'n', type: 'autonomous' });
  const token: string = created.token; // an issued agent always has its token
  void agents;
  void token;

  const batch = await warden.evaluations({
    subject: { type: 'agent', id: 'agt_x' },
    evaluations: [{ action: { name: 'read' }, resource: { type: 'mcp', id: 'x' } }],
    options: { evaluations_semantic: 'deny_on_first_deny' },
  });
  const first: boolean | undefined = batch.evaluations[0]?.decision;
  void first;

  // @ts-expect-error an event type outside the contract's enum
  warden.stream({ types: ['agent.exploded'] });
  for await (const event of warden.stream({ types: ['agent.created', 'audit'], lastEventId: '-1' })) {
    const item: StreamEvent = event;
    if (event.type === 'replay.incomplete') {
      const missed: string = event.missedThrough;
      void missed;
    } else {
      const id: string = event.id;
      void id;
    }
    void item;
  }

  try {
    const event: WardenEvent = verifyWebhook('whsec_x', { 'webhook-id': '1' }, new Uint8Array());
    void event;
  } catch (error) {
    if (error instanceof WardenError) {
      const fields: readonly { field: string; message: string }[] = error.errors;
      void fields;
    }
  }
}
