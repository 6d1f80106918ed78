// oauth4webapi 3.8.8 against Warden's grants for agents: token exchange (RFC 8693) of a user's access token by the
// user's own agent (act claim, intersected scope, the token on the REST API, ended by revoking the agent), and
// the device authorization grant (RFC 8628: device authorization, authorization_pending, approval on the
// verification page, the tokens, the refresh token).
//   WARDEN_URL=http://localhost:18080 node deploy/interop/oauth4webapi-agents.mjs
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { Browser } from './browser.mjs';
import { REDIRECT_URI, patientFetch, signUp, step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const http = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: patientFetch };
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

async function json(method, path, token, body) {
  const headers = { accept: 'application/json' };
  if (token) {
    headers.authorization = `Bearer ${token}`;
  }
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  const response = await patientFetch(`${WARDEN_URL}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

/** The claims of a JWT, not verified (the server's answers are what is checked). */
function claims(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

const credentials = await step('sign up a user (POST /auth/sign-up -> 201)', () => signUp(WARDEN_URL, 'o4wa'));
const session = await step('sign in (POST /auth/sign-in -> 200): the user id and a session token', async () => {
  const r = await json('POST', '/auth/sign-in', undefined, credentials);
  assert.equal(r.status, 200, `sign-in: ${truncate(r.text, 300)}`);
  return { userId: r.body.user.id, token: r.body.token };
});
const agent = await step('the user creates an agent that may read agents (POST /agents -> 201)', async () => {
  const r = await json('POST', '/agents', session.token, {
    ownerId: session.userId, name: 'interop agent', type: 'delegated',
    permissions: [{ resource: 'agents', actions: ['read'] }],
  });
  assert.equal(r.status, 201, `POST /agents: ${truncate(r.text, 300)}`);
  return r.body;
});

const issuer = new URL(WARDEN_URL);
const as = await step('authorization server metadata announces token exchange and the device endpoint', async () => {
  const metadata = await oauth.processDiscoveryResponse(issuer,
    await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oauth2' }));
  assert.ok(metadata.grant_types_supported?.includes(EXCHANGE), 'grant_types_supported has token exchange');
  assert.ok(metadata.grant_types_supported?.includes(DEVICE), 'grant_types_supported has the device code');
  assert.equal(metadata.device_authorization_endpoint, `${WARDEN_URL}/auth/device/code`, 'device_authorization_endpoint');
  return metadata;
});

const client = await step('dynamic registration of a public client with both grants -> 201', async () => {
  const response = await oauth.dynamicClientRegistrationRequest(as, {
    client_name: 'warden-interop oauth4webapi (agents)',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token', EXCHANGE, DEVICE],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }, http);
  const info = await oauth.processDynamicClientRegistrationResponse(response);
  return { client_id: info.client_id };
});
const clientAuth = oauth.None();

// ------------------------------------------------------------------ token exchange

const userToken = await step('the user authorizes the client (code + PKCE, scope agents:read audit:read)', async () => {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT_URI);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'agents:read audit:read');
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', 'agents');
  const back = await new Browser(credentials).authorize(url, REDIRECT_URI);
  const params = oauth.validateAuthResponse(as, client, back, 'agents');
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT_URI, verifier,
    http);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return tokens.access_token;
});

const exchanged = await step('token exchange: the agent (actor) obtains a token for the user (subject) -> act, scope', async () => {
  const response = await oauth.genericTokenEndpointRequest(as, client, clientAuth, EXCHANGE, {
    subject_token: userToken, subject_token_type: ACCESS_TOKEN,
    actor_token: agent.token, actor_token_type: ACCESS_TOKEN,
  }, http);
  const tokens = await oauth.processGenericTokenEndpointResponse(as, client, response);
  assert.equal(tokens.issued_token_type, ACCESS_TOKEN, 'issued_token_type');
  assert.equal(tokens.token_type, 'bearer', 'token_type');
  assert.equal(tokens.scope, 'agents:read', 'scope: the user\'s scopes the agent holds (not audit:read)');
  assert.equal(tokens.refresh_token, undefined, 'no refresh token');
  const c = claims(tokens.access_token);
  assert.equal(c.sub, session.userId, 'sub is the user');
  assert.deepEqual(c.act, { sub: agent.id }, 'act names the agent');
  assert.equal(c.iss, WARDEN_URL, 'iss');
  return tokens.access_token;
});

await step('the exchanged token reads /agents (200) but not /audit (403 insufficient_scope)', async () => {
  const agents = await oauth.protectedResourceRequest(exchanged, 'GET', new URL(`${WARDEN_URL}/agents`), new Headers(),
    undefined, http);
  assert.equal(agents.status, 200, `GET /agents: ${truncate(await agents.text(), 300)}`);
  await assert.rejects(
    oauth.protectedResourceRequest(exchanged, 'GET', new URL(`${WARDEN_URL}/audit`), new Headers(), undefined, http),
    (error) => error instanceof oauth.WWWAuthenticateChallengeError && error.status === 403
      && error.cause[0]?.parameters.error === 'insufficient_scope',
    'GET /audit answers 403 with an insufficient_scope challenge');
});

await step('a stranger\'s token as actor is refused: invalid_request (warden_error delegation_not_found)', async () => {
  const stranger = await signUp(WARDEN_URL, 'o4wb');
  const signedIn = await json('POST', '/auth/sign-in', undefined, stranger);
  const theirs = await json('POST', '/agents', signedIn.body.token, {
    ownerId: signedIn.body.user.id, name: 'not yours', type: 'delegated',
    permissions: [{ resource: 'agents', actions: ['read'] }],
  });
  const response = await oauth.genericTokenEndpointRequest(as, client, clientAuth, EXCHANGE, {
    subject_token: userToken, subject_token_type: ACCESS_TOKEN,
    actor_token: theirs.body.token, actor_token_type: ACCESS_TOKEN,
  }, http);
  await assert.rejects(oauth.processGenericTokenEndpointResponse(as, client, response), (error) => {
    assert.ok(error instanceof oauth.ResponseBodyError, `a ResponseBodyError, got ${error.name}`);
    assert.equal(error.error, 'invalid_request');
    assert.equal(error.cause.warden_error, 'delegation_not_found');
    return true;
  });
});

await step('revoking the agent ends the exchanged token at once (GET /agents -> 401 invalid_token)', async () => {
  const revoked = await json('DELETE', `/agents/${agent.id}`, session.token);
  assert.equal(revoked.status, 204, `DELETE /agents/{id}: ${revoked.text}`);
  await assert.rejects(
    oauth.protectedResourceRequest(exchanged, 'GET', new URL(`${WARDEN_URL}/agents`), new Headers(), undefined, http),
    (error) => error instanceof oauth.WWWAuthenticateChallengeError && error.status === 401,
    'a 401 challenge after the revocation');
});

// ------------------------------------------------------------------ device authorization grant

const device = await step('device authorization request -> device_code, user_code, verification URIs', async () => {
  const response = await oauth.deviceAuthorizationRequest(as, client, clientAuth, { scope: 'agents:read' }, http);
  const answer = await oauth.processDeviceAuthorizationResponse(as, client, response);
  assert.match(answer.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/, 'user_code');
  assert.equal(answer.verification_uri, `${WARDEN_URL}/auth/device`, 'verification_uri');
  assert.ok(answer.verification_uri_complete.startsWith(`${WARDEN_URL}/auth/device?user_code=`),
    'verification_uri_complete');
  return answer;
});

await step('polling before the user answers -> authorization_pending', async () => {
  const response = await oauth.deviceCodeGrantRequest(as, client, clientAuth, device.device_code, http);
  await assert.rejects(oauth.processDeviceCodeResponse(as, client, response), (error) => {
    assert.ok(error instanceof oauth.ResponseBodyError, `a ResponseBodyError, got ${error.name}: ${error.message}`);
    assert.equal(error.error, 'authorization_pending');
    return true;
  });
});

await step('the user signs in on the verification page, confirms the code and allows', async () => {
  const page = await new Browser(credentials).approveDevice(device.verification_uri_complete);
  assert.match(page, /Device connected/, `the last page: ${truncate(page, 300)}`);
});

await step('polling after approval (past the interval) -> the tokens, usable on /agents, and a refresh that works', async () => {
  await new Promise((resolve) => setTimeout(resolve, (device.interval + 1) * 1000));
  const response = await oauth.deviceCodeGrantRequest(as, client, clientAuth, device.device_code, http);
  const tokens = await oauth.processDeviceCodeResponse(as, client, response);
  assert.equal(tokens.scope, 'agents:read', 'scope');
  assert.equal(claims(tokens.access_token).sub, session.userId, 'sub is the user who approved');
  const agents = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${WARDEN_URL}/agents`),
    new Headers(), undefined, http);
  assert.equal(agents.status, 200, 'GET /agents with the device token');
  const refreshed = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, http));
  assert.equal(typeof refreshed.access_token, 'string', 'a refreshed access token');
});
