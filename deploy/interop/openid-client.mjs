// openid-client 6.8.9 against Warden's OAuth 2.1 authorization server: RFC 8414 discovery, RFC 7591 dynamic
// registration of confidential clients (client_secret_basic and client_secret_post), authorization code with
// PKCE S256, a protected API call, refresh with rotation, RFC 7662 introspection and RFC 7009 revocation.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/openid-client.mjs
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { Browser } from './browser.mjs';
import { REDIRECT_URI, patientFetch, signUp, step, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const issuer = new URL(WARDEN_URL);
// allowInsecureRequests: the dev server is plain http. RFC 8414 metadata (/.well-known/oauth-authorization-server),
// not OpenID Connect discovery, which openid-client tries by default.
const options = { execute: [client.allowInsecureRequests], algorithm: 'oauth2', [client.customFetch]: patientFetch };

const user = await step('sign up a user (POST /auth/sign-up -> 201)', () => signUp(WARDEN_URL, 'oidc'));
const browser = new Browser(user);

await step('discovery: authorization server metadata of WARDEN_URL', async () => {
  const config = await client.discovery(issuer, 'not-registered-yet', undefined, undefined, options);
  const metadata = config.serverMetadata();
  assert.equal(metadata.issuer, WARDEN_URL, 'issuer is WARDEN_URL exactly');
  for (const endpoint of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'introspection_endpoint',
    'revocation_endpoint']) {
    assert.equal(typeof metadata[endpoint], 'string', `metadata has ${endpoint}`);
  }
  assert.ok(metadata.code_challenge_methods_supported?.includes('S256'), 'code_challenge_methods_supported includes S256');
  for (const method of ['client_secret_basic', 'client_secret_post']) {
    assert.ok(metadata.token_endpoint_auth_methods_supported?.includes(method),
      `token_endpoint_auth_methods_supported includes ${method}: ${metadata.token_endpoint_auth_methods_supported}`);
  }
});

/** Dynamic registration (the registration_endpoint of the metadata) of a confidential client. */
async function register(method, clientAuthentication) {
  const config = await client.dynamicClientRegistration(issuer, {
    client_name: `warden-interop openid-client (${method})`,
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
  }, clientAuthentication, options);
  config[client.customFetch] = patientFetch;
  const registered = config.clientMetadata();
  assert.equal(typeof registered.client_id, 'string', 'client_id issued');
  assert.ok(registered.client_id.length > 0, 'client_id not empty');
  assert.equal(typeof registered.client_secret, 'string', 'client_secret issued to a confidential client');
  assert.ok(registered.client_secret.length > 0, 'client_secret not empty');
  if (registered.token_endpoint_auth_method !== undefined) {
    assert.equal(registered.token_endpoint_auth_method, method, 'registered token_endpoint_auth_method');
  }
  return config;
}

/** Authorization code + PKCE S256 through the browser, then the token request. */
async function codeFlow(config) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    state,
  });
  const callback = await browser.authorize(authorizationUrl, REDIRECT_URI);
  assert.ok(callback.searchParams.get('code'), `the redirect carries a code: ${callback.href}`);
  // Validates state and, as the metadata announces authorization_response_iss_parameter_supported, iss.
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
  });
  assert.equal(tokens.token_type, 'bearer', 'token_type Bearer');
  assert.equal(typeof tokens.access_token, 'string', 'access_token');
  assert.equal(typeof tokens.expires_in, 'number', `expires_in is a number: ${tokens.expires_in}`);
  assert.ok(tokens.expires_in > 0, 'expires_in > 0');
  assert.equal(typeof tokens.refresh_token, 'string', 'refresh_token issued');
  return tokens;
}

/** GET /agents with the access token; expects 200. */
async function listAgents(config, accessToken) {
  const response = await client.fetchProtectedResource(config, accessToken, new URL(`${WARDEN_URL}/agents`), 'GET');
  const body = await response.text();
  assert.equal(response.status, 200, `GET /agents with the access token: ${body.slice(0, 500)}`);
}

const basic = await step('dynamic registration of a confidential client (client_secret_basic): 201, client_id and client_secret',
  () => register('client_secret_basic', client.ClientSecretBasic()));

const first = await step('authorization code + PKCE S256 (sign-in, consent), token request with client_secret_basic',
  () => codeFlow(basic));

await step('GET /agents with the access token -> 200', () => listAgents(basic, first.access_token));

const refreshed = await step('refresh_token grant: new access token, rotated refresh token', async () => {
  const tokens = await client.refreshTokenGrant(basic, first.refresh_token);
  assert.equal(tokens.token_type, 'bearer', 'token_type Bearer');
  assert.equal(typeof tokens.access_token, 'string', 'access_token');
  assert.notEqual(tokens.access_token, first.access_token, 'a new access token');
  assert.equal(typeof tokens.refresh_token, 'string', 'a refresh token (rotation)');
  assert.notEqual(tokens.refresh_token, first.refresh_token, 'the refresh token was rotated');
  return tokens;
});

await step('GET /agents with the refreshed access token -> 200', () => listAgents(basic, refreshed.access_token));

await step('introspection of the new access token: active, client_id, sub, scope, exp', async () => {
  const info = await client.tokenIntrospection(basic, refreshed.access_token);
  assert.equal(info.active, true, 'active');
  assert.equal(info.client_id, basic.clientMetadata().client_id, 'client_id is the registered client');
  assert.equal(typeof info.sub, 'string', `sub: ${JSON.stringify(info)}`);
  assert.ok(info.sub.length > 0, 'sub not empty');
  assert.equal(typeof info.scope, 'string', `scope: ${JSON.stringify(info)}`);
  assert.equal(typeof info.exp, 'number', `exp: ${JSON.stringify(info)}`);
  assert.ok(info.exp > Date.now() / 1000 - 5, `exp is not in the past: ${info.exp}`);
});

await step('revocation of the refresh token', () =>
  client.tokenRevocation(basic, refreshed.refresh_token, { token_type_hint: 'refresh_token' }));

await step('introspection of the revoked refresh token: active false', async () => {
  const info = await client.tokenIntrospection(basic, refreshed.refresh_token, { token_type_hint: 'refresh_token' });
  assert.equal(info.active, false, `revoked refresh token is inactive: ${JSON.stringify(info)}`);
});

await step('refresh_token grant with the revoked refresh token -> invalid_grant', async () => {
  await assert.rejects(client.refreshTokenGrant(basic, refreshed.refresh_token), (error) => {
    assert.equal(error.error, 'invalid_grant', `an OAuth invalid_grant error, got: ${error.name} ${error.error ?? error.message}`);
    return true;
  }, 'the token endpoint accepted the revoked refresh token');
});

const post = await step('dynamic registration of a second confidential client (client_secret_post)',
  () => register('client_secret_post', client.ClientSecretPost()));

const second = await step('authorization code + PKCE S256 for the second client, token request with client_secret_post',
  () => codeFlow(post));

await step('GET /agents with the second client\'s access token -> 200', () => listAgents(post, second.access_token));
