// The event stream (docs/events.md, "The SSE stream"): the format parsed by hand, the test's own events arriving,
// and a connection cut in the middle that the iterator resumes with no gap and no repeat.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { SseParser, Warden, WardenError } from '@warden/client';
import { WARDEN_URL, signUp, sleep, startProxy, within } from './helpers.mjs';

/** `"R"` or `"R.i"` as [R, i] (i = -1 for a plain offset), to compare positions. */
const position = (id) => {
  const [offset, index] = id.split('.');
  return [Number(offset), index === undefined ? -1 : Number(index)];
};
const before_ = (a, b) => {
  const [x, y] = [position(a), position(b)];
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
};

describe('the event-stream format', () => {
  test('fields, comments, retry and line ends split anywhere', () => {
    const text =
      ': connected\r\n\r\nretry: 2500\n\nid: 7\nevent: agent.created\ndata: {"a":\ndata: 1}\n\n' +
      'id: 8.2\revent: audit\rdata: x\r\r: heartbeat\n\nid: 9\n\ndata:no-space\nfield-without-colon\n\n';
    const expected = [
      { kind: 'comment', text: 'connected' },
      { kind: 'retry', milliseconds: 2500 },
      { kind: 'event', id: '7', event: 'agent.created', data: '{"a":\n1}' },
      { kind: 'event', id: '8.2', event: 'audit', data: 'x' },
      { kind: 'comment', text: 'heartbeat' },
      { kind: 'id', id: '9' },
      { kind: 'event', id: undefined, event: 'message', data: 'no-space' },
    ];
    // Whole, then cut at every position (a CR LF cut in two included), then one character at a time.
    const whole = new SseParser().push(text);
    assert.deepEqual(whole, expected);
    for (let cut = 1; cut < text.length; cut++) {
      const parser = new SseParser();
      assert.deepEqual([...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))], expected, `cut at ${cut}`);
    }
    const parser = new SseParser();
    assert.deepEqual([...text].flatMap((c) => parser.push(c)), expected);
  });
});

describe('reconnection against a scripted server', () => {
  let server;
  let url;
  const seen = []; // { lastEventId, at } per connection
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ lastEventId: req.headers['last-event-id'], at: Date.now() });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (id) => `id: ${id}\nevent: agent.created\ndata: ${JSON.stringify({ id, type: 'agent.created', timestamp: '2030-01-01T00:00:00.000Z', data: {} })}\n\n`;
      if (seen.length === 1) {
        // Two events, a retry of 50 ms, and the connection dies.
        res.write(`: connected\n\nretry: 50\n\n${event('1')}${event('2')}`);
        setTimeout(() => res.socket.destroy(), 100);
      } else {
        res.write(`: connected\n\n${event('3')}${event('4')}`);
      }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('resumes with the Last-Event-ID of the last event yielded, after the retry: it was told', async () => {
    const warden = new Warden({ baseUrl: url, token: 'wdn_test' });
    const ids = [];
    for await (const event of warden.stream({ types: ['agent.created'], signal: AbortSignal.timeout(10_000) })) {
      ids.push(event.id);
      if (ids.length === 4) {
        break;
      }
    }
    assert.deepEqual(ids, ['1', '2', '3', '4']);
    assert.equal(seen.length, 2);
    assert.equal(seen[0].lastEventId, undefined);
    assert.equal(seen[1].lastEventId, '2');
    const waited = seen[1].at - seen[0].at - 100;
    assert.ok(waited < 800, `reconnected after about ${waited} ms, as retry: 50 says (the default is 1000)`);
  });
});

describe('the stream of a real Warden', () => {
  let owner;
  let warden;
  before(async () => {
    owner = await signUp('stream');
    warden = new Warden({ baseUrl: WARDEN_URL, token: owner.session });
  });

  test("the test's own actions arrive as events", async () => {
    let onOpen;
    const opened = new Promise((resolve) => {
      onOpen = resolve;
    });
    const controller = new AbortController();
    const iterator = warden.stream({ types: ['agent.created', 'agent.revoked'], signal: controller.signal, onOpen });
    try {
      const first = iterator.next(); // opens the connection
      await within(10_000, 'the stream to open', opened);
      const agent = await warden.createAgent({ ownerId: owner.userId, name: 'watched', type: 'autonomous' });
      await warden.revokeAgent(agent.id);
      const created = (await within(10_000, 'agent.created', first)).value;
      const revoked = (await within(10_000, 'agent.revoked', iterator.next())).value;
      assert.equal(created.type, 'agent.created');
      assert.equal(created.data.agent.id, agent.id);
      assert.equal(created.agentId, agent.id);
      assert.equal(created.userId, owner.userId);
      assert.equal(revoked.type, 'agent.revoked');
      assert.equal(revoked.agentId, agent.id);
      assert.ok(before_(created.id, revoked.id));
      controller.abort();
      assert.deepEqual(await within(5000, 'the end after abort', iterator.next()), { done: true, value: undefined });
    } finally {
      controller.abort();
    }
  });

  test('a connection cut in the middle resumes with no gap and no repeat', async () => {
    const proxy = await startProxy();
    const controller = new AbortController();
    try {
      const through = new Warden({ baseUrl: proxy.url, token: owner.session });
      let opens = 0;
      const iterator = through.stream({
        types: ['agent.created', 'audit'],
        lastEventId: '-1', // from the start: this user's events are the test's own
        signal: controller.signal,
        reconnectDelayMs: 200,
        onOpen: () => opens++,
      });

      // One agent and one decision per step: an agent.created event and an audit event each.
      const created = [];
      const audits = [];
      const act = async (n) => {
        const agent = await warden.createAgent({
          ownerId: owner.userId,
          name: `resume-${n}`,
          type: 'autonomous',
          permissions: [{ resource: 'mcp:files:*', actions: ['read'] }],
        });
        created.push(agent.id);
        const decision = await warden.authorize({ agentId: agent.id, action: 'read', resource: `mcp:files:${n}` });
        audits.push(decision.auditId);
      };
      for (const n of [1, 2, 3, 4]) {
        await act(n);
      }

      const ids = [];
      const agentsSeen = [];
      const auditsSeen = [];
      let pending; // a next() still waiting when a take gave up, for the following take
      /** Reads until `done()`, or for 15 s at most: what is missing then shows in the assertions below. */
      const take = async (done) => {
        const deadline = Date.now() + 15_000;
        while (!done() && Date.now() < deadline) {
          pending ??= iterator.next();
          const next = await Promise.race([pending, sleep(deadline - Date.now()).then(() => undefined)]);
          if (next === undefined) {
            return;
          }
          pending = undefined;
          assert.equal(next.done, false, 'the stream ended early');
          const event = next.value;
          ids.push(event.id);
          if (event.type === 'agent.created' && event.data.agent.name.startsWith('resume-')) {
            agentsSeen.push(event.data.agent.id);
          } else if (event.type === 'audit' && audits.includes(event.data.entry.id)) {
            auditsSeen.push(event.data.entry.id);
          }
        }
      };

      // Read part of what is there, then cut every connection while the rest is on its way or buffered.
      await take(() => agentsSeen.length >= 2);
      assert.equal(opens, 1);
      proxy.cut();
      // More happens while the client is cut off.
      await act(5);
      await act(6);
      await take(() => agentsSeen.length >= 6 && auditsSeen.length >= 6);
      // One more step: a repeat would come before it.
      await act(7);
      await take(() => agentsSeen.length >= 7 && auditsSeen.length >= 7);

      assert.ok(opens >= 2, `reconnected (${opens} connections)`);
      assert.ok(proxy.connections >= 2);
      assert.deepEqual(agentsSeen, created, 'every agent.created, once, in order');
      assert.deepEqual([...auditsSeen].sort(), [...audits].sort(), 'every decision, once');
      assert.equal(new Set(ids).size, ids.length, `no id twice: ${ids.join(' ')}`);
      for (let i = 1; i < ids.length; i++) {
        assert.ok(before_(ids[i - 1], ids[i]), `ids in order: ${ids[i - 1]} then ${ids[i]}`);
      }
    } finally {
      controller.abort();
      await proxy.close();
    }
  });

  test('an aborted stream ends while it waits', async () => {
    const controller = new AbortController();
    try {
      const iterator = warden.stream({ types: ['delegation.created'], signal: controller.signal });
      const pending = iterator.next();
      await sleep(300);
      controller.abort();
      assert.deepEqual(await within(5000, 'the end after abort', pending), { done: true, value: undefined });
    } finally {
      controller.abort();
    }
  });

  test('a bad token is the stream\'s error event, thrown as a WardenError', async () => {
    const stranger = new Warden({ baseUrl: WARDEN_URL, token: 'wdn_api_not-a-real-token' });
    const error = await within(10_000, 'the refusal', stranger.stream().next()).catch((e) => e);
    assert.ok(error instanceof WardenError, `expected a WardenError, got ${error}`);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'UNAUTHORIZED');
    assert.equal(error.detail, 'Invalid token');
  });

  test('an unknown event type is a 400 naming types', async () => {
    const error = await within(10_000, 'the refusal', warden.stream({ types: ['agent.exploded'] }).next()).catch((e) => e);
    assert.ok(error instanceof WardenError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_invalid');
    assert.deepEqual(error.errors.map((e) => e.field), ['types']);
  });
});
