// The MCP TypeScript SDK 2.x client (@modelcontextprotocol/client, pinned in package.json) against Warden's /mcp on
// the 2026-07-28 revision: with version negotiation on (`auto`, what the Python SDK 2.x does by default) the client
// probes `server/discover`, must settle on 2026-07-28 without an `initialize` and without a failed round trip, and
// then lists and calls tools, each request carrying the revision's `MCP-Protocol-Version`, `Mcp-Method` and (on
// tools/call) `Mcp-Name` headers. A client left on the older revisions still gets them (`initialize` first).
//   WARDEN_URL=http://localhost:18080 node deploy/interop/mcp-sdk-2026.mjs
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { patientFetch, signUp, step, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const MCP_URL = new URL(`${WARDEN_URL}/mcp`);

/** A user's session token (it holds the `mcp` scope). */
async function sessionToken() {
  const credentials = await signUp(WARDEN_URL, 'mcp2026');
  const response = await patientFetch(`${WARDEN_URL}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()).token;
}

/** A fetch that records what went over the wire: method, headers, status. */
function recordingFetch(wire) {
  return async (input, init) => {
    const body = init?.body ? JSON.parse(init.body) : {};
    const headers = new Headers(init?.headers);
    const response = await fetch(input, init);
    wire.push({
      method: body.method,
      version: headers.get('mcp-protocol-version'),
      mcpMethod: headers.get('mcp-method'),
      mcpName: headers.get('mcp-name'),
      status: response.status,
    });
    return response;
  };
}

async function connect(token, options) {
  const wire = [];
  const client = new Client({ name: 'warden-interop-2026', version: '1' }, options);
  await client.connect(
    new StreamableHTTPClientTransport(MCP_URL, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: recordingFetch(wire),
    }),
  );
  return { client, wire };
}

const token = await step('sign up and sign in (a session token holds mcp)', sessionToken);

await step('a 2026-07-28 client discovers, then lists and calls tools, without initialize', async () => {
  const { client, wire } = await connect(token, { versionNegotiation: { mode: 'auto' } });
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'dashboard_stats'), JSON.stringify(tools.tools.map((t) => t.name)));
  const result = await client.callTool({ name: 'dashboard_stats', arguments: {} });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  await client.close();

  const methods = wire.map((w) => w.method);
  assert.equal(methods[0], 'server/discover', JSON.stringify(wire));
  assert.ok(!methods.includes('initialize'), `no initialize: ${JSON.stringify(wire)}`);
  assert.ok(wire.every((w) => w.status === 200), `no failed round trip: ${JSON.stringify(wire)}`);
  for (const w of wire) {
    assert.equal(w.version, '2026-07-28', JSON.stringify(w));
    assert.equal(w.mcpMethod, w.method, JSON.stringify(w));
  }
  assert.equal(wire.find((w) => w.method === 'tools/call').mcpName, 'dashboard_stats');
});

await step('a client of the earlier revisions still initializes', async () => {
  const { client, wire } = await connect(token, {});
  assert.notEqual(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const tools = await client.listTools();
  assert.ok(tools.tools.length > 0);
  await client.close();
  assert.equal(wire[0].method, 'initialize', JSON.stringify(wire));
});
