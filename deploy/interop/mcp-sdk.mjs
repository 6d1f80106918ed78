// The MCP TypeScript SDK 1.32.2 client (Client + StreamableHTTPClientTransport with an OAuthClientProvider)
// against Warden's /mcp: the SDK discovers, registers a public client, runs authorization code + PKCE, lists and
// calls tools, and refreshes the access token by itself when the server rejects the expired one.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/mcp-sdk.mjs
// The server must issue short-lived access tokens (run.sh: WARDEN_OAUTH_ACCESS__TOKEN__TTL__SECONDS=5).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Browser } from './browser.mjs';
import { REDIRECT_URI, patientFetch, signUp, sleep, step, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const MCP_URL = new URL(`${WARDEN_URL}/mcp`);
const EXPECTED_TOOLS = ['list_agents', 'get_agent', 'query_audit', 'dashboard_stats', 'check_authorization'];
/** Longest access-token lifetime this script waits out (the server should be started with 5 s). */
const MAX_WAIT_SECONDS = 30;

/** An in-memory OAuthClientProvider whose "user agent" is the HTTP browser. */
class InMemoryOAuthProvider {
  constructor(browser) {
    this.browser = browser;
    this.savedClientInformation = undefined;
    this.savedTokens = undefined;
    this.savedCodeVerifier = undefined;
    this.expectedState = undefined;
    /** Every tokens object saved, in order (the first from the code, later ones from refreshes). */
    this.tokenHistory = [];
    /** Every authorization URL the SDK sent the user to. */
    this.authorizationUrls = [];
    this.invalidated = [];
    this.authorizationCode = undefined;
  }

  get redirectUrl() {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: 'warden-interop MCP SDK',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state() {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation() {
    return this.savedClientInformation;
  }

  saveClientInformation(clientInformation) {
    this.savedClientInformation = clientInformation;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens) {
    this.savedTokens = tokens;
    this.tokenHistory.push(tokens);
  }

  saveCodeVerifier(codeVerifier) {
    this.savedCodeVerifier = codeVerifier;
  }

  codeVerifier() {
    if (!this.savedCodeVerifier) {
      throw new Error('no PKCE code verifier saved');
    }
    return this.savedCodeVerifier;
  }

  invalidateCredentials(scope) {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') {
      this.savedClientInformation = undefined;
    }
    if (scope === 'all' || scope === 'tokens') {
      this.savedTokens = undefined;
    }
    if (scope === 'all' || scope === 'verifier') {
      this.savedCodeVerifier = undefined;
    }
  }

  /** The user's part: sign in and consent in the browser; keep the code from the redirect. */
  async redirectToAuthorization(authorizationUrl) {
    this.authorizationUrls.push(authorizationUrl);
    const callback = await this.browser.authorize(authorizationUrl, REDIRECT_URI);
    const parameters = callback.searchParams;
    if (parameters.get('error')) {
      throw new Error(`the authorization server answered error=${parameters.get('error')} `
        + `${parameters.get('error_description') ?? ''} (${callback.href})`);
    }
    assert.equal(parameters.get('state'), this.expectedState, 'state comes back unchanged');
    assert.equal(parameters.get('iss'), WARDEN_URL, 'iss (RFC 9207) is the issuer');
    assert.ok(parameters.get('code'), `a code in ${callback.href}`);
    this.authorizationCode = parameters.get('code');
  }
}

function newTransport(provider) {
  return new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider, fetch: patientFetch });
}

function newClient() {
  return new Client({ name: 'warden-interop-mcp-sdk', version: '0.0.0' });
}

function assertToolResult(result, name) {
  assert.notEqual(result.isError, true, `${name} answered isError: ${JSON.stringify(result.content)}`);
  assert.ok(Array.isArray(result.content) || result.structuredContent !== undefined,
    `${name} has content: ${JSON.stringify(result)}`);
}

const user = await step('sign up a user (POST /auth/sign-up -> 201)', () => signUp(WARDEN_URL, 'mcp'));
const provider = new InMemoryOAuthProvider(new Browser(user));

const firstTransport = await step('connect without a token -> UnauthorizedError after registration and the browser step', async () => {
  const transport = newTransport(provider);
  await assert.rejects(newClient().connect(transport), (error) => {
    assert.ok(error instanceof UnauthorizedError, `UnauthorizedError, got ${error.name}: ${error.message}`);
    return true;
  });
  assert.equal(provider.authorizationUrls.length, 1, 'the SDK sent the user to the authorization endpoint once');
  const authorizationUrl = provider.authorizationUrls[0];
  assert.equal(authorizationUrl.searchParams.get('resource'), MCP_URL.href, 'the SDK asked for resource=WARDEN_URL/mcp');
  assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256', 'PKCE S256');
  assert.equal(typeof provider.savedClientInformation?.client_id, 'string', 'the SDK registered a client');
  assert.ok(provider.authorizationCode, 'the browser brought back a code');
  return transport;
});

await step('transport.finishAuth(code): tokens saved', async () => {
  await firstTransport.finishAuth(provider.authorizationCode);
  const tokens = provider.tokens();
  assert.equal(typeof tokens?.access_token, 'string', 'access_token');
  assert.equal(typeof tokens.refresh_token, 'string', 'refresh_token');
  assert.equal(tokens.token_type.toLowerCase(), 'bearer', 'token_type Bearer');
});

let client;
await step('connect again with a new transport -> initialized', async () => {
  client = newClient();
  await client.connect(newTransport(provider));
  assert.ok(client.getServerVersion()?.name, `serverInfo: ${JSON.stringify(client.getServerVersion())}`);
});

await step(`listTools includes ${EXPECTED_TOOLS.join(', ')}`, async () => {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of EXPECTED_TOOLS) {
    assert.ok(names.includes(name), `tool ${name} in ${names.join(', ')}`);
  }
});

await step('callTool dashboard_stats succeeds', async () => {
  assertToolResult(await client.callTool({ name: 'dashboard_stats', arguments: {} }), 'dashboard_stats');
});

await step('callTool list_agents succeeds', async () => {
  assertToolResult(await client.callTool({ name: 'list_agents', arguments: {} }), 'list_agents');
});

const before = provider.tokens();
const lifetime = Number(before.expires_in);
await step(`wait until the access token expires (expires_in ${before.expires_in} s, + 2 s)`, async () => {
  assert.ok(Number.isFinite(lifetime) && lifetime > 0, `expires_in is a positive number: ${before.expires_in}`);
  assert.ok(lifetime <= MAX_WAIT_SECONDS, `the access token lives ${lifetime} s; start the server with `
    + 'WARDEN_OAUTH_ACCESS__TOKEN__TTL__SECONDS=5 (deploy/interop/run.sh does)');
  await sleep((lifetime + 2) * 1000);
});

await step('callTool after expiry succeeds: the SDK refreshed the token (401 -> refresh_token grant -> retry)', async () => {
  const savedBefore = provider.tokenHistory.length;
  assertToolResult(await client.callTool({ name: 'list_agents', arguments: {} }), 'list_agents');
  const after = provider.tokens();
  assert.equal(provider.authorizationUrls.length, 1, 'no new authorization request: refreshed, not re-authorized');
  assert.ok(provider.tokenHistory.length > savedBefore, 'the SDK saved new tokens');
  assert.notEqual(after.access_token, before.access_token, 'a NEW access token');
  assert.equal(typeof after.refresh_token, 'string', 'a refresh token');
  assert.notEqual(after.refresh_token, before.refresh_token, 'the refresh token was rotated');
  assert.deepEqual(provider.invalidated, [], 'no credentials were invalidated');
});

await step('close', () => client.close());
