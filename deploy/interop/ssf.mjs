// The Shared Signals transmitter (docs/shared-signals.md) as a receiver meets it, every token verified with an
// independent JOSE library (npm `jose`, pinned in package.json): the metadata, a receiver authenticating with client
// credentials, a push stream (RFC 8935) received by a local HTTP receiver that verifies each Security Event Token's
// signature against the JWKS, `typ`, `iss`, `aud`, `jti` uniqueness and its event, through an outage (connection
// refused, then 503) after which the backlog arrives in order, then a poll stream (RFC 8936) with acknowledgement.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/ssf.mjs   (the server must allow private push targets:
//   WARDEN_WEBHOOKS_ALLOW__PRIVATE__TARGETS=true, as run.sh starts it)
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { newCredentials, patientFetch, sleep, step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const VERIFICATION = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

async function call(method, path, token, body, expected) {
  const response = await patientFetch(`${WARDEN_URL}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.equal(response.status, expected, `${method} ${path}: ${truncate(text, 400)}`);
  return text ? JSON.parse(text) : undefined;
}

const owner = await step('a person signs up (the receiver agent will be theirs)', async () => {
  const credentials = newCredentials('ssf');
  const answer = await call('POST', '/auth/sign-up', undefined, credentials, 201);
  return { id: answer.user.id, session: answer.token };
});

const metadata = await step('GET /.well-known/ssf-configuration names the issuer, the JWKS and both methods', async () => {
  const doc = await call('GET', '/.well-known/ssf-configuration', undefined, undefined, 200);
  assert.equal(doc.issuer, WARDEN_URL);
  assert.equal(doc.spec_version, '1_0');
  assert.deepEqual(doc.delivery_methods_supported, ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936']);
  for (const key of ['configuration_endpoint', 'status_endpoint', 'add_subject_endpoint', 'remove_subject_endpoint',
    'verification_endpoint', 'jwks_uri']) {
    assert.ok(doc[key]?.startsWith(WARDEN_URL), `${key}: ${doc[key]}`);
  }
  return doc;
});
const JWKS = createRemoteJWKSet(new URL(metadata.jwks_uri));

const receiver = await step('the receiver: a service agent with the ssf permission, bound as an OAuth client', async () => {
  const agent = await call('POST', '/agents', owner.session, {
    ownerId: owner.id, name: 'ssf-receiver', type: 'service',
    permissions: [{ resource: 'ssf', actions: ['read', 'write'] }],
  }, 201);
  await call('POST', `/agents/${agent.id}/oauth-client`, owner.session, undefined, 201);
  return { id: agent.id, secret: agent.token };
});

/** A fresh client-credentials token (the interop server's access tokens live 5 s). */
async function receiverToken() {
  const response = await patientFetch(metadata.issuer + '/oauth/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${receiver.id}:${receiver.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'ssf:read ssf:write' }),
  });
  const answer = await response.json();
  assert.equal(response.status, 200, JSON.stringify(answer));
  assert.equal(answer.scope.split(' ').sort().join(' '), 'ssf:read ssf:write');
  return answer.access_token;
}

/** Verifies a Security Event Token as a receiver must; returns its claims. */
const seen = new Set();
async function verified(token) {
  assert.equal(decodeProtectedHeader(token).typ, 'secevent+jwt');
  const { payload } = await jwtVerify(token, JWKS, {
    issuer: metadata.issuer, audience: receiver.id, typ: 'secevent+jwt', algorithms: ['ES256'],
  });
  assert.ok(payload.jti && !seen.has(payload.jti), `jti ${payload.jti} unique`);
  seen.add(payload.jti);
  assert.equal(Object.keys(payload.events).length, 1, 'one event per token');
  assert.equal(typeof payload.iat, 'number');
  return payload;
}

// ---------------------------------------------------------------- push (RFC 8935)
const received = [];
let mode = 'accept';
let server;
let port = 0;
const problems = [];
function listen() {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', async () => {
      if (mode === 'fail') {
        res.writeHead(503).end();
        return;
      }
      try {
        assert.equal(req.headers['content-type'], 'application/secevent+jwt');
        assert.equal(req.headers.authorization, 'Bearer interop-receiver');
        received.push(await verified(body));
        res.writeHead(202).end();
      } catch (error) {
        problems.push(String(error?.message ?? error));
        res.writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ err: 'invalid_request', description: 'did not verify' }));
      }
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => {
    port = server.address().port;
    resolve();
  }));
}
await listen();

async function until(what, condition, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  while (!condition() && Date.now() < deadline) {
    await sleep(100);
  }
  assert.ok(condition(), `${what} (received ${received.length}: ${JSON.stringify(received.map(type))}; `
    + `problems ${JSON.stringify(problems)})`);
}
const type = (claims) => Object.keys(claims.events)[0];

const push = await step('POST /ssf/streams: a push stream to a local receiver', async () => {
  const stream = await call('POST', '/ssf/streams', await receiverToken(), {
    delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: `http://127.0.0.1:${port}/events`,
      authorization_header: 'Bearer interop-receiver' },
    events_requested: [`${CAEP}session-revoked`, `${CAEP}credential-change`],
  }, 201);
  assert.equal(stream.aud, receiver.id);
  assert.equal(stream.iss, metadata.issuer);
  assert.deepEqual(stream.events_delivered, [`${CAEP}session-revoked`, `${CAEP}credential-change`]);
  return stream;
});

const target = await step('the owner rotates, suspends and revokes an agent of theirs', async () => {
  const agent = await call('POST', '/agents', owner.session, {
    ownerId: owner.id, name: 'watched', type: 'autonomous', permissions: [{ resource: 'files', actions: ['read'] }],
  }, 201);
  await call('POST', `/agents/${agent.id}/rotate`, owner.session, undefined, 200);
  await call('POST', `/agents/${agent.id}/suspend`, owner.session, undefined, 200);
  await call('DELETE', `/agents/${agent.id}`, owner.session, undefined, 204);
  return agent.id;
});

await step('the receiver gets credential-change, then session-revoked twice, each verified by jose', async () => {
  await until('three tokens', () => received.length >= 3);
  assert.deepEqual(received.map(type), [`${CAEP}credential-change`, `${CAEP}session-revoked`, `${CAEP}session-revoked`]);
  for (const claims of received) {
    assert.deepEqual(claims.sub_id, { format: 'iss_sub', iss: metadata.issuer, sub: target });
  }
  assert.equal(received[0].events[`${CAEP}credential-change`].change_type, 'update');
  assert.deepEqual(problems, []);
});

await step('POST /ssf/verify: a verification event with the receiver\'s state comes through the stream', async () => {
  await call('POST', '/ssf/verify', await receiverToken(), { stream_id: push.stream_id, state: 'interop-state' }, 204);
  await until('the verification event', () => received.length >= 4);
  assert.equal(type(received[3]), VERIFICATION);
  assert.equal(received[3].events[VERIFICATION].state, 'interop-state');
});

await step('an outage (connection refused, then 503) loses nothing: the backlog arrives in order', async () => {
  await new Promise((resolve) => server.close(resolve));
  const agent = await call('POST', '/agents', owner.session, {
    ownerId: owner.id, name: 'during-outage', type: 'autonomous', permissions: [{ resource: 'files', actions: ['read'] }],
  }, 201);
  for (let i = 0; i < 3; i++) {
    await call('POST', `/agents/${agent.id}/rotate`, owner.session, undefined, 200);
  }
  await sleep(3000);
  mode = 'fail';
  await listen();
  await call('POST', `/agents/${agent.id}/suspend`, owner.session, undefined, 200);
  await sleep(3000);
  assert.equal(received.length, 4, 'nothing got through during the outage');
  mode = 'accept';
  await until('the four signals made during the outage', () => received.length >= 8, 90);
  assert.deepEqual(received.slice(4).map(type),
    [`${CAEP}credential-change`, `${CAEP}credential-change`, `${CAEP}credential-change`, `${CAEP}session-revoked`]);
  const times = received.slice(4).map((c) => Object.values(c.events)[0].event_timestamp);
  assert.deepEqual([...times].sort((a, b) => a - b), times, 'in order');
  assert.deepEqual(problems, []);
});
await new Promise((resolve) => server.close(resolve));

// ---------------------------------------------------------------- poll (RFC 8936)
const poll = await step('POST /ssf/streams: a poll stream, whose configuration names the poll URL', async () => {
  const stream = await call('POST', '/ssf/streams', await receiverToken(),
    { delivery: { method: 'urn:ietf:rfc:8936' }, events_requested: [`${CAEP}session-revoked`] }, 201);
  assert.equal(stream.delivery.endpoint_url, `${metadata.issuer}/ssf/poll/${stream.stream_id}`);
  return stream;
});

await step('a revocation is polled, verified by jose, acknowledged, and then gone', async () => {
  const agent = await call('POST', '/agents', owner.session, {
    ownerId: owner.id, name: 'polled', type: 'autonomous', permissions: [{ resource: 'files', actions: ['read'] }],
  }, 201);
  await call('DELETE', `/agents/${agent.id}`, owner.session, undefined, 204);
  const path = new URL(poll.delivery.endpoint_url).pathname;
  let answer = { sets: {} };
  const deadline = Date.now() + 30_000;
  while (Object.keys(answer.sets).length === 0 && Date.now() < deadline) {
    answer = await call('POST', path, await receiverToken(), { returnImmediately: false, maxEvents: 10 }, 200);
  }
  const jtis = Object.keys(answer.sets);
  assert.equal(jtis.length, 1, JSON.stringify(answer));
  const claims = await verified(answer.sets[jtis[0]]);
  assert.equal(claims.jti, jtis[0]);
  assert.equal(type(claims), `${CAEP}session-revoked`);
  assert.equal(claims.sub_id.sub, agent.id);
  assert.equal(answer.moreAvailable, false);
  const after = await call('POST', path, await receiverToken(), { ack: jtis, returnImmediately: true }, 200);
  assert.deepEqual(after.sets, {});
});

await step('DELETE /ssf/streams: both streams are gone', async () => {
  const token = await receiverToken();
  await call('DELETE', `/ssf/streams?stream_id=${push.stream_id}`, token, undefined, 204);
  await call('DELETE', `/ssf/streams?stream_id=${poll.stream_id}`, token, undefined, 204);
  assert.deepEqual(await call('GET', '/ssf/streams', token, undefined, 200), []);
});
