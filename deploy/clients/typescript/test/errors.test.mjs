// WardenError: every refusal, whichever body Warden answered it with (docs/errors.md).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Warden, WardenError } from '@warden/client';
import { WARDEN_URL, signUp } from './helpers.mjs';

/** A fetch that answers `response` to anything. */
const answering = (response) => async () => response.clone();

describe('refusals become WardenError', () => {
  let user;
  let warden;
  before(async () => {
    user = await signUp('errors');
    warden = new Warden({ baseUrl: WARDEN_URL, token: user.session });
  });

  test('a problem document surfaces its code, detail and request id', async () => {
    let responseRequestId;
    const spying = new Warden({
      baseUrl: WARDEN_URL,
      token: user.session,
      fetch: async (input, init) => {
        const response = await globalThis.fetch(input, init);
        responseRequestId = response.headers.get('x-request-id');
        return response;
      },
    });
    const error = await spying.getAgent('agt_does_not_exist').catch((e) => e);
    assert.ok(error instanceof WardenError, `expected a WardenError, got ${error}`);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'agent_not_found');
    assert.equal(typeof error.detail, 'string');
    assert.ok(error.detail.length > 0);
    assert.match(error.requestId, /^req_/);
    assert.equal(error.requestId, responseRequestId, 'the problem names the request id of the X-Request-Id header');
    assert.equal(error.problem?.instance, '/agents/agt_does_not_exist');
    assert.match(error.message, /^404 agent_not_found: /);
  });

  test('validation_invalid names every field at fault', async () => {
    const error = await warden
      .createAgent({ ownerId: user.userId, name: '', type: 'robot', permissions: [{ resource: 'mcp:*:x', actions: [] }] })
      .catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_invalid');
    const fields = error.errors.map((e) => e.field);
    for (const field of ['name', 'type']) {
      assert.ok(fields.includes(field), `errors name ${field}: ${JSON.stringify(error.errors)}`);
    }
    for (const e of error.errors) {
      assert.equal(typeof e.message, 'string');
    }
  });

  test('a bad token is 401 unauthorized', async () => {
    const stranger = new Warden({ baseUrl: WARDEN_URL, token: 'wdn_api_not-a-real-token' });
    const error = await stranger.listAgents().catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'unauthorized');
    assert.match(error.requestId, /^req_/);
  });

  test("the 429 body (not a problem) gives RATE_LIMIT_EXCEEDED and Retry-After", async () => {
    const body = { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Try again in 42 seconds', details: { limit: 5, window: 60, retryAfter: 42 } } };
    const limited = new Warden({
      baseUrl: WARDEN_URL,
      token: 'x',
      fetch: answering(new Response(JSON.stringify(body), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '42', 'x-request-id': 'req_limited' },
      })),
    });
    const error = await limited.listAgents().catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(error.detail, 'Try again in 42 seconds');
    assert.equal(error.retryAfter, 42);
    assert.equal(error.requestId, 'req_limited');
  });

  test('a text answer (503 Too many connections) keeps its status, text and Retry-After', async () => {
    const busy = new Warden({
      baseUrl: WARDEN_URL,
      token: 'x',
      fetch: answering(new Response('Too many connections', { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '5' } })),
    });
    const error = await busy.getAgent('agt_x').catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'http_503');
    assert.equal(error.detail, 'Too many connections');
    assert.equal(error.retryAfter, 5);
  });
});
