// A service agent bound as an OAuth client acts with client-credentials access tokens (docs/agents-oauth.md): the
// client finds the token endpoint, caches the token, renews it before it expires, and concurrent callers share
// one renewal.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Warden, WardenError } from '@warden/client';
import { WARDEN_URL, recordingFetch, signUp, sleep } from './helpers.mjs';

const METADATA = '/.well-known/oauth-authorization-server';

describe('client credentials for a service agent', () => {
  let owner;
  let service;
  let tokenPath;

  before(async () => {
    owner = await signUp('cc');
    const warden = new Warden({ baseUrl: WARDEN_URL, token: owner.session });
    service = await warden.createAgent({
      ownerId: owner.userId,
      name: 'indexer',
      type: 'service',
      permissions: [
        { resource: 'authorize', actions: ['write'] },
        { resource: 'mcp:github:*', actions: ['read'] },
      ],
    });
    const binding = await warden.bindOAuthClient(service.id);
    assert.equal(binding.client_id, service.id);
    assert.equal(binding.client_secret_source, 'agent_token');
    assert.ok(binding.grant_types.includes('client_credentials'));
    const metadata = await (await fetch(`${WARDEN_URL}${METADATA}`)).json();
    tokenPath = new URL(metadata.token_endpoint).pathname;
  });

  const credentials = () => ({ clientId: service.id, clientSecret: service.token });
  const call = (warden, n) =>
    warden.authorize({ agentId: service.id, action: 'read', resource: `mcp:github:issues:${n}` });

  test('concurrent first calls share one token request, and the token is an access token, not the secret', async () => {
    const fetch = recordingFetch();
    const warden = new Warden({ baseUrl: WARDEN_URL, credentials: credentials(), fetch });
    const decisions = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => call(warden, n)));
    assert.ok(decisions.every((d) => d.allowed === true), JSON.stringify(decisions));
    assert.equal(fetch.count(METADATA), 1, 'the metadata is read once');
    assert.equal(fetch.count(tokenPath), 1, 'one token request for six concurrent calls');
    const token = fetch.requests.find((r) => r.url.pathname === tokenPath);
    assert.equal(token.method, 'POST');
    assert.match(token.headers.get('authorization'), /^Basic /);
    const bearers = fetch.requests.filter((r) => r.url.pathname === '/authorize').map((r) => r.headers.get('authorization'));
    assert.equal(bearers.length, 6);
    assert.equal(new Set(bearers).size, 1, 'every call carried the same cached token');
    assert.match(bearers[0], /^Bearer eyJ/, 'a JWT access token');
    assert.ok(!bearers[0].includes(service.token), 'never the client secret');

    await call(warden, 7);
    assert.equal(fetch.count(tokenPath), 1, 'a later call reuses the cached token');
  });

  test('the token is renewed shortly before it expires, once for concurrent callers', async () => {
    // Warden's agent tokens live 5 minutes; the answer is rewritten to 2 s so the renewal comes within the test.
    // With renewBeforeSeconds 30 capped at half the lifetime, the token is used for 1 s.
    const fetch = recordingFetch(async (url, response) => {
      if (url.pathname !== tokenPath || !response.ok) {
        return undefined;
      }
      const body = await response.json();
      assert.ok(body.expires_in > 2, `Warden's own lifetime: ${body.expires_in}`);
      return Response.json({ ...body, expires_in: 2 }, { status: response.status, headers: response.headers });
    });
    const warden = new Warden({ baseUrl: WARDEN_URL, credentials: credentials(), fetch });
    await call(warden, 1);
    await call(warden, 2);
    assert.equal(fetch.count(tokenPath), 1, 'still fresh');
    await sleep(1300);
    const decisions = await Promise.all([3, 4, 5, 6].map((n) => call(warden, n)));
    assert.ok(decisions.every((d) => d.allowed === true));
    assert.equal(fetch.count(tokenPath), 2, 'renewed once for four concurrent callers');
    const bearers = fetch.requests.filter((r) => r.url.pathname === '/authorize').map((r) => r.headers.get('authorization'));
    assert.equal(bearers[0], bearers[1]);
    assert.notEqual(bearers[2], bearers[0], 'the calls after the renewal carry the new token');
    assert.equal(new Set(bearers.slice(2)).size, 1);
  });

  test('a wrong secret is the token endpoint\'s invalid_client, as a WardenError', async () => {
    const warden = new Warden({
      baseUrl: WARDEN_URL,
      credentials: { clientId: service.id, clientSecret: 'wdn_agt_wrong-secret' },
    });
    const error = await call(warden, 1).catch((e) => e);
    assert.ok(error instanceof WardenError, `expected a WardenError, got ${error}`);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_client');
    assert.equal(typeof error.detail, 'string');
  });
});
