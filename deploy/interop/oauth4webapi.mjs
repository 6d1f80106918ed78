// oauth4webapi 3.8.8 against Warden as an MCP authorization server and protected resource: the 401 challenge of
// /mcp (RFC 6750 + RFC 9728 resource_metadata), protected resource metadata, RFC 8414 metadata, dynamic
// registration of a public client, authorization code + PKCE with a resource indicator (RFC 8707), RFC 9207 iss
// validation, the token on /mcp, refresh token rotation and reuse detection (the whole family revoked).
//   WARDEN_URL=http://localhost:18080 node deploy/interop/oauth4webapi.mjs
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { Browser } from './browser.mjs';
import { REDIRECT_URI, patientFetch, signUp, step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const MCP_URL = `${WARDEN_URL}/mcp`;
const mcpUrl = new URL(MCP_URL);
// The dev server is plain http.
const http = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: patientFetch };

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'warden-interop-oauth4webapi', version: '0.0.0' },
  },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * A request to /mcp WITHOUT a token, its challenges parsed by oauth4webapi itself. (3.x does not export
 * parseWwwAuthenticateChallenges; protectedResourceRequest throws WWWAuthenticateChallengeError with the parsed
 * challenges as `cause`. It insists on a token argument, so the Authorization header is dropped on the way out.)
 */
async function challengesWithoutToken(method, body, headers) {
  const withoutAuthorization = (url, init) => {
    const { authorization, ...rest } = init.headers;
    return patientFetch(url, { ...init, headers: rest });
  };
  let response;
  try {
    response = await oauth.protectedResourceRequest('unused', method, mcpUrl, new Headers(headers), body,
      { ...http, [oauth.customFetch]: withoutAuthorization });
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) {
      throw error;
    }
    assert.equal(error.status, 401, `${method} /mcp without a token answers 401`);
    return error.cause;
  }
  const text = await response.text();
  assert.fail(`${method} /mcp without a token answered ${response.status} without a WWW-Authenticate challenge: ${truncate(text, 500)}`);
}

function assertOneBearerChallenge(challenges, what) {
  assert.equal(challenges.length, 1, `${what}: exactly one challenge: ${JSON.stringify(challenges)}`);
  const [challenge] = challenges;
  assert.equal(challenge.scheme, 'bearer', `${what}: a Bearer challenge`);
  const resourceMetadata = challenge.parameters.resource_metadata;
  assert.equal(typeof resourceMetadata, 'string', `${what}: resource_metadata parameter: ${JSON.stringify(challenge)}`);
  const url = new URL(resourceMetadata); // throws unless absolute
  assert.ok(url.protocol === 'http:' || url.protocol === 'https:', `${what}: resource_metadata is an absolute http(s) URL`);
  return resourceMetadata;
}

/** An MCP JSON-RPC response from a POST /mcp, answered as JSON or as an SSE stream. */
async function readJsonRpc(response) {
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const text = await response.text();
  if (contentType === 'application/json') {
    return JSON.parse(text);
  }
  if (contentType === 'text/event-stream') {
    const data = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
      if (lines.length) {
        const message = JSON.parse(lines.join('\n'));
        if ('result' in message || 'error' in message) {
          data.push(message);
        }
      }
    }
    assert.ok(data.length > 0, `a JSON-RPC response in the event stream: ${truncate(text, 500)}`);
    return data[0];
  }
  assert.fail(`POST /mcp answered ${contentType || 'no content type'}: ${truncate(text, 500)}`);
}

/** Expects the token endpoint to refuse with the OAuth error invalid_grant (a ResponseBodyError). */
async function expectInvalidGrant(promise, what) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof oauth.ResponseBodyError,
      `an OAuth error response (ResponseBodyError), got ${error.name}: ${error.message}`);
    assert.equal(error.error, 'invalid_grant', `error invalid_grant, got ${error.error}: ${error.error_description ?? ''}`);
    assert.equal(error.status, 400, 'status 400');
    return true;
  }, `the token endpoint accepted ${what}; expected invalid_grant`);
}

const user = await step('sign up a user (POST /auth/sign-up -> 201)', () => signUp(WARDEN_URL, 'o4w'));
const browser = new Browser(user);

const resourceMetadataUrl = await step('GET /mcp without a token -> 401 with one Bearer challenge carrying resource_metadata', async () => {
  const challenges = await challengesWithoutToken('GET', undefined, { accept: 'text/event-stream' });
  return assertOneBearerChallenge(challenges, 'GET /mcp');
});

await step('POST /mcp (JSON-RPC initialize) without a token -> 401 with the same challenge', async () => {
  const challenges = await challengesWithoutToken('POST', JSON.stringify(INITIALIZE), MCP_HEADERS);
  assert.equal(assertOneBearerChallenge(challenges, 'POST /mcp'), resourceMetadataUrl, 'the same resource_metadata');
});

const resource = await step('protected resource metadata (RFC 9728): resource is WARDEN_URL/mcp, authorization server WARDEN_URL', async () => {
  // The document the challenge points at...
  const fromChallenge = await oauth.processResourceDiscoveryResponse(mcpUrl,
    await patientFetch(resourceMetadataUrl, { headers: { accept: 'application/json' }, redirect: 'manual' }));
  // ... and the one at the well-known location derived from the resource (/.well-known/oauth-protected-resource/mcp).
  const discovered = await oauth.processResourceDiscoveryResponse(mcpUrl,
    await oauth.resourceDiscoveryRequest(mcpUrl, http));
  for (const metadata of [fromChallenge, discovered]) {
    assert.equal(metadata.resource, MCP_URL, 'resource');
    assert.ok(Array.isArray(metadata.authorization_servers), 'authorization_servers');
    assert.equal(metadata.authorization_servers[0], WARDEN_URL, 'authorization_servers[0]');
  }
  return discovered;
});

const as = await step('authorization server metadata (RFC 8414): iss parameter supported, S256', async () => {
  const issuer = new URL(resource.authorization_servers[0]);
  const metadata = await oauth.processDiscoveryResponse(issuer,
    await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oauth2' }));
  assert.equal(metadata.issuer, WARDEN_URL, 'issuer');
  assert.equal(metadata.authorization_response_iss_parameter_supported, true, 'authorization_response_iss_parameter_supported');
  assert.ok(metadata.code_challenge_methods_supported?.includes('S256'), 'code_challenge_methods_supported includes S256');
  assert.equal(typeof metadata.registration_endpoint, 'string', 'registration_endpoint');
  return metadata;
});

const registered = await step('dynamic registration of a public client (token_endpoint_auth_method none) -> 201, client_id', async () => {
  const response = await oauth.dynamicClientRegistrationRequest(as, {
    client_name: 'warden-interop oauth4webapi (public)',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }, http);
  const info = await oauth.processDynamicClientRegistrationResponse(response); // insists on 201
  assert.equal(typeof info.client_id, 'string', 'client_id');
  if (info.token_endpoint_auth_method !== undefined) {
    assert.equal(info.token_endpoint_auth_method, 'none', 'registered token_endpoint_auth_method');
  }
  return info;
});

const publicClient = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
const clientAuth = oauth.None();

await step('a callback whose iss is another issuer is rejected by validateAuthResponse (RFC 9207)', () => {
  const state = oauth.generateRandomState();
  const forged = new URL(REDIRECT_URI);
  forged.search = new URLSearchParams({ code: 'forged', state, iss: 'http://attacker.invalid' }).toString();
  assert.throws(() => oauth.validateAuthResponse(as, publicClient, forged, state),
    (error) => error instanceof oauth.OperationProcessingError && /"iss"/.test(error.message));
  const missing = new URL(REDIRECT_URI);
  missing.search = new URLSearchParams({ code: 'forged', state }).toString();
  assert.throws(() => oauth.validateAuthResponse(as, publicClient, missing, state),
    (error) => error instanceof oauth.OperationProcessingError && /"iss"/.test(error.message));
});

const callbackParameters = await step('authorization code + PKCE S256 with resource=WARDEN_URL/mcp; validateAuthResponse (state, iss)', async () => {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: publicClient.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    resource: MCP_URL,
  }).toString();
  const callback = await browser.authorize(url, REDIRECT_URI);
  const parameters = oauth.validateAuthResponse(as, publicClient, callback, state);
  return { parameters, codeVerifier };
});

const tokens = await step('token request (authorization_code, public client) -> bearer access and refresh tokens', async () => {
  const response = await oauth.authorizationCodeGrantRequest(as, publicClient, clientAuth, callbackParameters.parameters,
    REDIRECT_URI, callbackParameters.codeVerifier, { ...http, additionalParameters: { resource: MCP_URL } });
  const result = await oauth.processAuthorizationCodeResponse(as, publicClient, response);
  assert.equal(result.token_type, 'bearer', 'token_type Bearer');
  assert.equal(typeof result.expires_in, 'number', 'expires_in');
  assert.equal(typeof result.refresh_token, 'string', 'refresh_token');
  return result;
});

async function initializeWith(accessToken) {
  const response = await oauth.protectedResourceRequest(accessToken, 'POST', mcpUrl, new Headers(MCP_HEADERS),
    JSON.stringify(INITIALIZE), http);
  if (response.status !== 200) {
    assert.fail(`POST /mcp with the access token answered ${response.status}: ${truncate(await response.text(), 500)}`);
  }
  const message = await readJsonRpc(response);
  assert.equal(message.jsonrpc, '2.0', `a JSON-RPC response: ${JSON.stringify(message)}`);
  assert.equal(message.id, INITIALIZE.id, 'the id of the request');
  assert.ok(message.result, `a result, not an error: ${JSON.stringify(message)}`);
  assert.equal(typeof message.result.protocolVersion, 'string', 'result.protocolVersion');
}

await step('POST /mcp (JSON-RPC initialize) with the access token -> 200 and an initialize result',
  () => initializeWith(tokens.access_token));

const rotated = await step('refresh_token grant -> a new refresh token (rotation)', async () => {
  const response = await oauth.refreshTokenGrantRequest(as, publicClient, clientAuth, tokens.refresh_token,
    { ...http, additionalParameters: { resource: MCP_URL } });
  const result = await oauth.processRefreshTokenResponse(as, publicClient, response);
  assert.equal(typeof result.access_token, 'string', 'access_token');
  assert.notEqual(result.access_token, tokens.access_token, 'a new access token');
  assert.equal(typeof result.refresh_token, 'string', 'a refresh token');
  assert.notEqual(result.refresh_token, tokens.refresh_token, 'the refresh token was rotated');
  return result;
});

await step('POST /mcp with the refreshed access token -> 200', () => initializeWith(rotated.access_token));

await step('reusing the OLD refresh token -> invalid_grant', () =>
  expectInvalidGrant(oauth.refreshTokenGrantRequest(as, publicClient, clientAuth, tokens.refresh_token,
    { ...http, additionalParameters: { resource: MCP_URL } })
    .then((response) => oauth.processRefreshTokenResponse(as, publicClient, response)), 'the old, already used refresh token'));

await step('the NEW refresh token is revoked with its family -> invalid_grant', () =>
  expectInvalidGrant(oauth.refreshTokenGrantRequest(as, publicClient, clientAuth, rotated.refresh_token,
    { ...http, additionalParameters: { resource: MCP_URL } })
    .then((response) => oauth.processRefreshTokenResponse(as, publicClient, response)),
  'the new refresh token after the old one was reused (its family should be revoked)'));
