// A real webhook delivery from Warden to a local receiver, verified with verifyWebhook (Standard Webhooks,
// docs/webhooks.md). The server must allow private targets (WARDEN_WEBHOOKS_ALLOW__PRIVATE__TARGETS=true).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Warden, WebhookVerificationError, verifyWebhook } from '@warden/client';
import { WARDEN_URL, signUp, sleep } from './helpers.mjs';

describe('webhook deliveries', () => {
  let receiver;
  const deliveries = []; // { headers, body: Buffer }
  let owner;
  let warden;
  let webhook;
  let agent;
  let delivery;

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    owner = await signUp('hooks');
    warden = new Warden({ baseUrl: WARDEN_URL, token: owner.session });
  });
  after(async () => {
    if (webhook) {
      await warden.deleteWebhook(webhook.id);
    }
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  test('Warden delivers an event to the subscribed endpoint', async () => {
    webhook = await warden.createWebhook({
      url: `http://127.0.0.1:${receiver.address().port}/warden`,
      eventTypes: ['agent.created'],
      description: 'ts client test',
    });
    assert.match(webhook.secret, /^whsec_/);
    agent = await warden.createAgent({ ownerId: owner.userId, name: 'hooked', type: 'autonomous' });
    const deadline = Date.now() + 30_000;
    while (!(delivery = deliveries.find((d) => d.body.includes(agent.id)))) {
      assert.ok(Date.now() < deadline, `no delivery for ${agent.id} within 30 s (${deliveries.length} others)`);
      await sleep(100);
    }
  });

  test('verifyWebhook verifies it and answers the event (Node headers, the bytes)', () => {
    const event = verifyWebhook(webhook.secret, delivery.headers, delivery.body);
    assert.equal(event.type, 'agent.created');
    assert.equal(event.id, delivery.headers['webhook-id']);
    assert.equal(event.agentId, agent.id);
    assert.equal(event.userId, owner.userId);
    assert.equal(event.data.agent.id, agent.id);
  });

  test('verifyWebhook takes fetch Headers and the text as well', () => {
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    const event = verifyWebhook(webhook.secret, headers, delivery.body.toString('utf8'));
    assert.equal(event.data.agent.id, agent.id);
  });

  test('a tampered body is rejected', () => {
    const tampered = delivery.body.toString('utf8').replace('"hooked"', '"hacked"');
    assert.notEqual(tampered, delivery.body.toString('utf8'));
    assert.throws(() => verifyWebhook(webhook.secret, delivery.headers, tampered), WebhookVerificationError);
  });

  test('another secret, a missing signature and a replayed old timestamp are rejected', () => {
    const otherSecret = `whsec_${Buffer.from('another endpoint secret, 32 b!!').toString('base64')}`;
    assert.throws(() => verifyWebhook(otherSecret, delivery.headers, delivery.body), WebhookVerificationError);
    const { 'webhook-signature': _, ...unsigned } = delivery.headers;
    assert.throws(() => verifyWebhook(webhook.secret, unsigned, delivery.body), /Missing required headers/);
    const stale = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    assert.throws(() => verifyWebhook(webhook.secret, stale, delivery.body), WebhookVerificationError);
  });
});
