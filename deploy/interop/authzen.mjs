// The AuthZEN Authorization API 1.0 against Warden with the specification's own test material (openid/authzen at
// commit e287920, vendored in deploy/interop/authzen: see its README.md):
//   1. the fixtures are loaded through the public API (authzen/fixtures.mjs);
//   2. the certification scenario (certification/authorization-api-1_0-scenario.md): every test of the Basic, Batch,
//      Search and Discovery levels, core and properties, one step each, here (the scenario has no runner of its own);
//   3. the todo interop harness (interop/authzen-todo-backend/test/runner.ts, `yarn test <pdp> authorization-api-1_0-02`:
//      40 evaluations and 3 batches) and the search harness (interop/authzen-search-demo/test-harness/src/runner.ts:
//      60 subject, 18 resource and 120 action searches), transpiled as they are and run with node; every result must
//      be PASS.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/authzen.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadFixtures } from './authzen/fixtures.mjs';
import { step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const here = fileURLToPath(new URL('./authzen/', import.meta.url));

const tokens = await step('load the three fixtures through the public API (people, agents, API tokens)',
  () => loadFixtures(WARDEN_URL));

/** POSTs `body` (an object, or a raw string) to an AuthZEN path with the certification fixture's token. */
async function post(path, body, headers = {}) {
  const response = await fetch(`${WARDEN_URL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.certification}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

const user = (id, properties) => (properties ? { type: 'user', id, properties } : { type: 'user', id });
const record = (id, properties) => (properties ? { type: 'record', id, properties } : { type: 'record', id });
const action = (name, properties) => (properties ? { name, properties } : { name });

async function decision(body, expected) {
  const r = await post('/access/v1/evaluation', body);
  assert.equal(r.status, 200, truncate(r.text, 300));
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof r.json.decision, 'boolean', 'decision is a boolean');
  if (r.json.context !== undefined) {
    assert.equal(typeof r.json.context, 'object', 'context is an object');
  }
  if (expected !== undefined) {
    assert.equal(r.json.decision, expected, `decision of ${JSON.stringify(body)}`);
  }
  return r.json;
}

async function batch(body, expected, length = expected?.length) {
  const r = await post('/access/v1/evaluations', body);
  assert.equal(r.status, 200, truncate(r.text, 300));
  assert.ok(Array.isArray(r.json.evaluations), 'evaluations is an array');
  assert.equal(r.json.evaluations.length, length, 'as many answers as evaluations');
  for (const e of r.json.evaluations) {
    assert.equal(typeof e.decision, 'boolean', 'each answer has a boolean decision');
  }
  if (expected) {
    assert.deepEqual(r.json.evaluations.map((e) => e.decision), expected);
  }
  return r.json;
}

async function status(path, body, expected, headers) {
  const r = await post(path, body, headers);
  assert.equal(r.status, expected, `${path} ${typeof body === 'string' ? body : JSON.stringify(body)}: ${truncate(r.text, 300)}`);
  return r;
}

async function results(kind, body, mustInclude, typeOf) {
  const r = await post(`/access/v1/search/${kind}`, body);
  assert.equal(r.status, 200, truncate(r.text, 300));
  assert.ok(Array.isArray(r.json.results), 'results is an array');
  for (const item of r.json.results) {
    if (kind === 'action') {
      assert.equal(typeof item.name, 'string', 'each action has a name');
    } else {
      assert.equal(typeof item.id, 'string', 'each result has an id');
      assert.equal(item.type, typeOf, 'each result is of the type searched');
    }
  }
  const found = r.json.results.map((item) => item.name ?? item.id);
  for (const id of mustInclude) {
    assert.ok(found.includes(id), `${id} is among ${JSON.stringify(found)}`);
  }
  return r.json;
}

// ---------------------------------------------------------------- Basic (c-2)
const rec1 = record('record-1');
const archived = record('record-2', { status: 'archived' });
await step('c-2-2-1 alice read record-1: true', () => decision({ subject: user('alice'), action: action('read'), resource: rec1 }, true));
await step('c-2-2-2 bob write record-1: false', () => decision({ subject: user('bob'), action: action('write'), resource: rec1 }, false));
const context = { time: '2025-06-27T18:03-07:00', ip: '192.168.1.1' };
await step('c-2-2-3 with context: true', () => decision({ subject: user('alice'), action: action('read'), resource: rec1, context }, true));
await step('c-2-2-4 alice write archived: false', () => decision({ subject: user('alice'), action: action('write'), resource: archived }, false));
await step('c-2-2-5 bob (role admin) write archived: true', () =>
  decision({ subject: user('bob', { role: 'admin' }), action: action('write'), resource: archived }, true));
await step('c-2-2-6 alice soft delete: true', () => decision({ subject: user('alice'), action: action('delete', { soft: true }), resource: rec1 }, true));
await step('c-2-2-7 alice hard delete: false', () => decision({ subject: user('alice'), action: action('delete', { soft: false }), resource: rec1 }, false));
await step('c-2-2-8 additional properties: true', () => decision({
  subject: user('alice', { department: 'Sales', role: 'manager' }), action: action('read', { method: 'GET' }),
  resource: record('record-1', { status: 'active', owner: 'bob' }) }, true));
await step('c-2-2-9 unknown fields ignored: true', () => decision({
  subject: user('alice'), action: action('read'), resource: rec1, foo: 'bar', futureField: { nested: true } }, true));
await step('c-2-4-1 a missing subject, action or resource: 400', async () => {
  await status('/access/v1/evaluation', { action: action('read'), resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), action: action('read') }, 400);
});
await step('c-2-4-2 a missing type, id or name: 400', async () => {
  await status('/access/v1/evaluation', { subject: { id: 'alice' }, action: action('read'), resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: { type: 'user' }, action: action('read'), resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), action: {}, resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), action: action('read'), resource: { id: 'record-1' } }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), action: action('read'), resource: { type: 'record' } }, 400);
});
const valid = JSON.stringify({ subject: user('alice'), action: action('read'), resource: rec1 });
await step('c-2-4-3 a Content-Type other than application/json: 400', () =>
  status('/access/v1/evaluation', valid, 400, { 'content-type': 'text/plain' }));
await step('c-2-4-4 malformed JSON: 400', () => status('/access/v1/evaluation', '{"subject": {', 400));
await step('c-2-4-5 an empty body: 400', () => status('/access/v1/evaluation', '', 400));
await step('c-2-4-6 fields of the wrong type: 400', async () => {
  await status('/access/v1/evaluation', { subject: 'alice', action: action('read'), resource: rec1 }, 400);
  await status('/access/v1/evaluation', { subject: user('alice'), action: { name: 123 }, resource: rec1 }, 400);
});
await step('c-2-5 X-Request-ID is echoed; without it nothing fails', async () => {
  const r = await post('/access/v1/evaluation', valid, { 'x-request-id': 'cert-2-5-1-0b7e4c' });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-request-id'), 'cert-2-5-1-0b7e4c');
  assert.equal((await post('/access/v1/evaluation', valid)).status, 200);
});
await step('c-2-6 the same request five times: the same decision', async () => {
  for (let i = 0; i < 5; i++) {
    await decision({ subject: user('alice'), action: action('read'), resource: rec1 }, true);
    await decision({ subject: user('bob'), action: action('write'), resource: rec1 }, false);
  }
});

// ---------------------------------------------------------------- Batch (c-3)
await step('c-3-2-1 a batch of two: two boolean decisions', () => batch({
  subject: user('alice'), action: action('read'), evaluations: [{ resource: rec1 }, { resource: record('record-2') }] }, undefined, 2));
await step('c-3-2-2 bob read, write record-1: [true, false]', () => batch({
  subject: user('bob'), resource: rec1, evaluations: [{ action: action('read') }, { action: action('write') }] }, [true, false]));
await step('c-3-2-3 alice write active, archived: [true, false]', () => batch({
  subject: user('alice'), action: action('write'),
  evaluations: [{ resource: record('record-1', { status: 'active' }) }, { resource: archived }] }, [true, false]));
await step('c-3-2-4 alice, bob (admin) write archived: [false, true]', () => batch({
  action: action('write'), resource: archived,
  evaluations: [{ subject: user('alice') }, { subject: user('bob', { role: 'admin' }) }] }, [false, true]));
await step('c-3-2-5 fully specified evaluations: [true, false]', () => batch({ evaluations: [
  { subject: user('alice'), action: action('read'), resource: rec1 },
  { subject: user('bob'), action: action('write'), resource: rec1 }] }, [true, false]));
await step('c-3-2-6 context inherited and overridden: accepted', () => batch({
  subject: user('alice'), action: action('read'), context: { time: '2025-06-27T18:03-07:00' },
  evaluations: [{ resource: rec1 }, { resource: record('record-2'), context: { time: '2025-06-27T19:00-07:00', source: 'batch-override' } }] },
undefined, 2));
await step('c-3-2-7 defaults inherited whole, overridden whole: [true, false]', () => batch({
  subject: user('alice'), action: action('write'), resource: record('record-1', { status: 'active' }),
  evaluations: [{}, { resource: archived }] }, [true, false]));
await step('c-3-4-1 execute_all with an item missing its resource: 200, [true, false]', () => batch({
  subject: user('alice'), action: action('read'), options: { evaluations_semantic: 'execute_all' },
  evaluations: [{ resource: rec1 }, {}] }, [true, false]));
for (const [id, evaluations] of [['c-3-4-2 no evaluations', undefined], ['c-3-4-3 empty evaluations', []]]) {
  await step(`${id}: answered as one evaluation, true`, async () => {
    const r = await post('/access/v1/evaluations', { subject: user('alice'), action: action('read'), resource: rec1, evaluations });
    assert.equal(r.status, 200, truncate(r.text, 300));
    assert.equal(r.json.decision, true);
  });
}

// ---------------------------------------------------------------- Search (c-4)
const readRec1 = { action: action('read'), resource: rec1 };
await step('c-4-2-1 S1 subjects that read record-1 include alice and bob', () =>
  results('subject', { subject: { type: 'user' }, ...readRec1 }, ['alice', 'bob'], 'user'));
await step('c-4-2-2 with context: the same', () =>
  results('subject', { subject: { type: 'user' }, ...readRec1, context }, ['alice', 'bob'], 'user'));
await step('c-4-2-3 a subject id given is ignored', () =>
  results('subject', { subject: user('alice'), ...readRec1 }, ['alice', 'bob'], 'user'));
await step('c-4-2-4 S4 subjects that write archived record-2 include bob', () =>
  results('subject', { subject: { type: 'user' }, action: action('write'), resource: archived }, ['bob'], 'user'));
await step('c-4-3-1 S2 records alice reads include record-1', () =>
  results('resource', { subject: user('alice'), action: action('read'), resource: { type: 'record' } }, ['record-1'], 'record'));
await step('c-4-3-2 with context: the same', () =>
  results('resource', { subject: user('alice'), action: action('read'), resource: { type: 'record' }, context }, ['record-1'], 'record'));
await step('c-4-3-3 a resource id given is ignored', () =>
  results('resource', { subject: user('alice'), action: action('read'), resource: rec1 }, ['record-1'], 'record'));
await step('c-4-3-4 S5 records bob (admin) writes include record-2', () =>
  results('resource', { subject: user('bob', { role: 'admin' }), action: action('write'), resource: { type: 'record' } }, ['record-2'], 'record'));
await step('c-4-4-1 S3 actions of alice on record-1 include read and write', () =>
  results('action', { subject: user('alice'), resource: rec1 }, ['read', 'write']));
await step('c-4-4-2 with context: the same', () =>
  results('action', { subject: user('alice'), resource: rec1, context }, ['read', 'write']));
await step('c-4-4-3 S6 actions of bob (admin) on archived record-2 include write', () =>
  results('action', { subject: user('bob', { role: 'admin' }), resource: archived }, ['write']));
await step('c-4-5 pages: limit 1, then the next_token until it is empty', async () => {
  const query = { subject: { type: 'user' }, ...readRec1 };
  const seen = [];
  let page = await results('subject', { ...query, page: { limit: 1 } }, [], 'user');
  for (let i = 0; ; i++) {
    assert.equal(typeof page.page, 'object');
    assert.equal(typeof page.page.next_token, 'string');
    assert.ok(page.results.length <= 1);
    seen.push(...page.results.map((r) => r.id));
    if (page.page.next_token === '') {
      break;
    }
    assert.ok(i < 10, 'pages end');
    page = await results('subject', { ...query, page: { token: page.page.next_token, limit: 1 } }, [], 'user');
  }
  assert.ok(seen.includes('alice') && seen.includes('bob'), `alice and bob over the pages: ${seen}`);
});
await step('c-4-6 unknown ids and types: empty results', async () => {
  assert.deepEqual((await results('action', { subject: user('nonexistent-user'), resource: rec1 }, [])).results, []);
  assert.deepEqual((await results('subject', { subject: { type: 'spaceship' }, ...readRec1 }, [], 'spaceship')).results, []);
  assert.deepEqual((await results('resource', { subject: user('alice'), action: action('read'), resource: { type: 'spaceship' } }, [], 'spaceship')).results, []);
});
await step('c-4-7 missing fields and input ids: 400', async () => {
  await status('/access/v1/search/subject', { subject: { type: 'user' }, resource: rec1 }, 400);
  await status('/access/v1/search/resource', { action: action('read'), resource: { type: 'record' } }, 400);
  await status('/access/v1/search/action', { subject: user('alice') }, 400);
  const noIds = { subject: { type: 'user' }, action: action('read'), resource: { type: 'record' } };
  await status('/access/v1/search/subject', noIds, 400);
  await status('/access/v1/search/resource', noIds, 400);
  await status('/access/v1/search/action', { subject: { type: 'user' }, resource: rec1 }, 400);
});

// ---------------------------------------------------------------- Discovery (c-6)
await step('c-6 the metadata names this PDP and its five endpoints', async () => {
  const response = await fetch(`${WARDEN_URL}/.well-known/authzen-configuration`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const metadata = await response.json();
  assert.equal(metadata.policy_decision_point, WARDEN_URL);
  for (const [key, path] of Object.entries({
    access_evaluation_endpoint: '/access/v1/evaluation', access_evaluations_endpoint: '/access/v1/evaluations',
    search_subject_endpoint: '/access/v1/search/subject', search_resource_endpoint: '/access/v1/search/resource',
    search_action_endpoint: '/access/v1/search/action',
  })) {
    // the scheme is the server's own: HTTPS behind TLS (the harness asks for it), plain HTTP on `warden dev`
    assert.equal(metadata[key], `${WARDEN_URL}${path}`, key);
  }
});

// ---------------------------------------------------------------- the interop harnesses, as they are
const build = `${here}build/`;
const require = createRequire(import.meta.url);
const ts = require('typescript');

/** Transpiles a vendored runner.ts to CommonJS in build/NAME (beside its JSON files), as `tsc` would emit it. */
function transpile(name, jsonFiles) {
  const out = `${build}${name}/`;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const source = readFileSync(`${here}${name}/runner.ts`, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: {
    module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true } });
  writeFileSync(`${out}runner.cjs`, outputText);
  for (const file of jsonFiles) {
    mkdirSync(`${out}${file.split('/').slice(0, -1).join('/')}`, { recursive: true });
    copyFileSync(`${here}${name}/${file}`, `${out}${file}`);
  }
  return `${out}runner.cjs`;
}

/** Runs a harness; its PASS/FAIL/ERROR lines counted. */
function run(script, args, token) {
  const result = spawnSync(process.execPath, [script, ...args], {
    env: { ...process.env, AUTHZEN_PDP_API_KEY: `Bearer ${token}`, NO_COLOR: '1' }, encoding: 'utf8', timeout: 90_000,
  });
  // eslint-disable-next-line no-control-regex
  const lines = (result.stdout ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').filter((l) => /^(PASS|FAIL|ERROR) /.test(l));
  const count = (word) => lines.filter((l) => l.startsWith(`${word} `)).length;
  return { lines, pass: count('PASS'), fail: count('FAIL'), error: count('ERROR'), status: result.status, stderr: result.stderr };
}

function report(name, outcome, expected) {
  console.log(`# ${name}: ${outcome.pass} PASS, ${outcome.fail} FAIL, ${outcome.error} ERROR`);
  const bad = outcome.lines.filter((l) => !l.startsWith('PASS '));
  assert.equal(outcome.status, 0, `exit ${outcome.status}: ${truncate(outcome.stderr ?? '', 800)}`);
  assert.deepEqual(bad, [], 'every result PASS');
  assert.equal(outcome.pass, expected, `${expected} results`);
}

await step('interop/authzen-todo-backend harness (authorization-api-1_0-02): 40 evaluations and 3 batches PASS', () => {
  const runner = transpile('todo', ['decisions-authorization-api-1_0-02.json']);
  report('todo harness', run(runner, [WARDEN_URL, 'authorization-api-1_0-02', 'console'], tokens.todo), 43);
});
await step('interop/authzen-search-demo harness: 60 subject, 18 resource and 120 action searches PASS', () => {
  const runner = transpile('search', ['subject/results.json', 'resource/results.json', 'action/results.json']);
  report('search harness', run(runner, [WARDEN_URL, 'console'], tokens.search), 198);
});
