// The durable audit sinks through a SIEM outage, as a security team meets them (docs/audit-sinks.md): three
// receivers read what Warden sends with the libraries such teams use: a Splunk HEC double that parses HEC's batch
// body (one `{"time","source","sourcetype","event"}` object per line, splunk-logging's shape) and checks the token,
// the `cloudevents` SDK's HTTP binding (HTTP.toEvent validates each structured event), and OTLP/HTTP protobuf decoded
// with the OpenTelemetry protobufs (the generated ExportLogsServiceRequest of @opentelemetry/otlp-transformer).
// Then a minute-long outage hits all three at once, each its own way: HEC answers 500, the CloudEvents receiver is
// down (connection refused), the OTLP receiver takes 5 s per request. Decisions go on throughout; halfway through,
// the server (every role: API and sinks) is stopped and started again, as an operator restarts it. Once the receivers
// recover, every one of them must hold every decision made, with no gap; a duplicate is allowed only for an entry a
// receiver first got while the restart cut its delivery (the 6 s before the stop began, or during it): they are
// counted and printed.
//   run.sh starts the server with these three sinks (INTEROP_HEC_PORT, INTEROP_CE_PORT, INTEROP_OTLP_PORT), and
//   restarts it when asked (SIGUSR1 to INTEROP_RUNNER_PID; INTEROP_RESTARTS_FILE counts the restarts done).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { HTTP } from 'cloudevents';
import { newCredentials, patientFetch, sleep, step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const require = createRequire(import.meta.url);
const otlp = require(require.resolve('@opentelemetry/otlp-transformer/build/src/generated/root.js'));
const ExportLogsServiceRequest = otlp.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
const OUTAGE_MS = Number(process.env.INTEROP_OUTAGE_MS ?? 60_000);

function port(name) {
  const value = Number(process.env[name]);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name} is not set: run.sh starts the server with the three sinks and sets it`);
  }
  return value;
}

/** A receiver: `parse(req, body)` returns the audit entries `{id, agentId}` of one request, or throws. */
class Receiver {
  constructor(name, portNumber, parse) {
    this.name = name;
    this.port = portNumber;
    this.parse = parse;
    this.mode = 'ok';
    this.ids = [];
    this.problems = [];
    this.requests = 0;
  }

  start() {
    this.server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        this.requests++;
        if (this.mode === 'fail') {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"text":"Internal server error","code":8}');
          return;
        }
        if (this.mode === 'slow') {
          await sleep(5000);
        }
        try {
          const at = Date.now();
          for (const entry of this.parse(req, Buffer.concat(chunks))) {
            this.ids.push({ ...entry, at });
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
        } catch (error) {
          this.problems.push(String(error?.message ?? error));
          res.writeHead(400).end();
        }
      });
    });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', resolve);
    });
  }

  /**
   * Stops listening: idle connections close now, a request being answered gets its answer first (an answer cut
   * off after the entries were recorded would be a duplicate the sink cannot know of: the receiver's, not Warden's).
   */
  stop() {
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeIdleConnections?.();
    return closed;
  }

  /** How often each id of `wanted` arrived (an audit entry of `agent`). */
  counts(agent, wanted) {
    const counts = new Map(wanted.map((id) => [id, 0]));
    for (const e of this.ids) {
      if (e.agentId === agent && counts.has(e.id)) {
        counts.set(e.id, counts.get(e.id) + 1);
      }
    }
    return counts;
  }

  /** The ids of `wanted` that arrived more than once, each with the time it first arrived. */
  duplicates(agent, wanted) {
    const first = new Map();
    const repeated = new Set();
    const want = new Set(wanted);
    for (const e of this.ids) {
      if (e.agentId !== agent || !want.has(e.id)) {
        continue;
      }
      if (first.has(e.id)) {
        repeated.add(e.id);
      } else {
        first.set(e.id, e.at);
      }
    }
    return [...repeated].map((id) => ({ id, firstAt: first.get(id) }));
  }
}

const hec = new Receiver('splunk-hec', port('INTEROP_HEC_PORT'), (req, body) => {
  assert.equal(req.url, '/services/collector/event');
  assert.equal(req.headers.authorization, 'Splunk interop-hec-token');
  const lines = body.toString('utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const event = JSON.parse(line);
    assert.equal(typeof event.time, 'number', 'HEC time in epoch seconds');
    assert.equal(event.source, 'warden');
    assert.equal(event.sourcetype, 'warden:audit');
    assert.equal(typeof event.event?.id, 'string');
    return { id: event.event.id, agentId: event.event.agentId };
  });
});
const cloudEvents = new Receiver('cloudevents', port('INTEROP_CE_PORT'), (req, body) => {
  const parsed = HTTP.toEvent({ headers: req.headers, body: body.toString('utf8') });
  return (Array.isArray(parsed) ? parsed : [parsed]).map((event) => {
    event.validate();
    assert.equal(event.specversion, '1.0');
    assert.match(event.type, /^dev\.warden\.audit\./);
    return { id: event.id, agentId: event.data?.agentId };
  });
});
const otlpLogs = new Receiver('otlp-logs', port('INTEROP_OTLP_PORT'), (req, body) => {
  assert.equal(req.url, '/v1/logs');
  assert.equal(req.headers['content-type'], 'application/x-protobuf');
  const request = ExportLogsServiceRequest.decode(body);
  const entries = [];
  for (const resourceLogs of request.resourceLogs) {
    for (const scopeLogs of resourceLogs.scopeLogs) {
      for (const record of scopeLogs.logRecords) {
        const attribute = (key) => record.attributes.find((a) => a.key === key)?.value?.stringValue;
        entries.push({ id: attribute('warden.audit.id'), agentId: attribute('warden.agent.id') });
      }
    }
  }
  return entries;
});
const receivers = [hec, cloudEvents, otlpLogs];
await step('three receivers listen: HEC, CloudEvents (cloudevents SDK), OTLP/HTTP (OpenTelemetry protobufs)',
  () => Promise.all(receivers.map((r) => r.start())));

async function call(method, path, token, body, expected) {
  const response = await patientFetch(`${WARDEN_URL}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.equal(response.status, expected, `${method} ${path}: ${truncate(text, 400)}`);
  return text ? JSON.parse(text) : undefined;
}

const agent = await step('a person and an agent of theirs that asks for decisions', async () => {
  const signedUp = await call('POST', '/auth/sign-up', undefined, newCredentials('sinks'), 201);
  return call('POST', '/agents', signedUp.token, {
    ownerId: signedUp.user.id, name: 'audited', type: 'autonomous',
    permissions: [{ resource: 'files:*', actions: ['read'] }],
  }, 201);
});

async function decide(tag) {
  const answer = await call('POST', '/authorize', agent.token,
    { agentId: agent.id, action: 'read', resource: `files:${tag}` }, 200);
  assert.equal(typeof answer.auditId, 'string');
  return answer.auditId;
}

async function awaitAll(ids, seconds) {
  const deadline = Date.now() + seconds * 1000;
  const missing = () => receivers.flatMap((r) => [...r.counts(agent.id, ids)]
    .filter(([, n]) => n === 0).map(([id]) => `${r.name}:${id}`));
  while (missing().length > 0 && Date.now() < deadline) {
    await sleep(250);
  }
  assert.deepEqual(missing(), [], `every entry in every receiver (problems: ${JSON.stringify(receivers.map((r) => r.problems))})`);
}

const made = [];
await step('healthy: five decisions reach all three receivers', async () => {
  for (let i = 0; i < 5; i++) {
    made.push(await decide(`healthy-${i}`));
  }
  await awaitAll(made, 60);
});

/** Asks run.sh to restart the server and waits until it answers again. */
async function restartServer() {
  const runner = Number(process.env.INTEROP_RUNNER_PID);
  const file = process.env.INTEROP_RESTARTS_FILE;
  if (!Number.isInteger(runner) || runner <= 0 || !file) {
    throw new Error('INTEROP_RUNNER_PID and INTEROP_RESTARTS_FILE are not set: run.sh restarts the server it started');
  }
  const before = Number(readFileSync(file, 'utf8'));
  process.kill(runner, 'SIGUSR1');
  const deadline = Date.now() + 240_000;
  while (Number(readFileSync(file, 'utf8')) === before) {
    if (Date.now() > deadline) {
      throw new Error('the server was not restarted within 240 s');
    }
    await sleep(250);
  }
}

const restart = {};
await step(`a ${OUTAGE_MS / 1000}-second outage: HEC answers 500, CloudEvents refuses connections, OTLP takes 5 s; `
  + 'the server restarts halfway', async () => {
  hec.mode = 'fail';
  otlpLogs.mode = 'slow';
  await cloudEvents.stop();
  const hecAccepted = hec.ids.length;
  const start = Date.now();
  let i = 0;
  while (Date.now() - start < OUTAGE_MS) {
    made.push(await decide(`outage-${i++}`));
    if (restart.from === undefined && Date.now() - start >= OUTAGE_MS / 2) {
      restart.from = Date.now();
      await restartServer();
      restart.to = Date.now();
      console.error(`# the server restarted in ${((restart.to - restart.from) / 1000).toFixed(1)} s`);
      continue;
    }
    await sleep(2000);
  }
  assert.ok(restart.to !== undefined, 'the server restarted during the outage');
  assert.equal(hec.ids.length, hecAccepted, 'HEC accepted nothing while it failed');
  assert.ok(hec.requests > 1, 'HEC was retried during the outage');
  console.error(`# ${i} decisions during the outage`);
});

await step('recovery: every decision reaches every receiver, in full; duplicates only where the restart cut a delivery',
  async () => {
  hec.mode = 'ok';
  otlpLogs.mode = 'ok';
  await cloudEvents.start();
  await awaitAll(made, 120);
  const crossed = (at) => at >= restart.from - 6000 && at <= restart.to;
  for (const r of receivers) {
    const counts = r.counts(agent.id, made);
    const duplicates = r.duplicates(agent.id, made);
    const outside = duplicates.filter((d) => !crossed(d.firstAt));
    console.error(`# ${r.name}: ${counts.size} entries, ${duplicates.length} duplicates (${duplicates.length - outside.length} `
      + `across the restart), ${r.requests} requests`);
    assert.deepEqual(outside, [], `${r.name}: duplicates of entries first delivered away from the restart`);
    assert.deepEqual(r.problems, [], `${r.name} problems`);
  }
});

await Promise.all(receivers.map((r) => r.stop()));
