// The `warden` CLI as a person uses it (docs/cli.md), against the running `warden dev`: the runnable jar
// (deploy/cli/target) in a process of its own for every command, with a configuration directory of its own. It
// signs in through the device grant (the approval made on the server's own device page by the Browser), then
// drives every command: agents, delegations, authorize (exit 0 and 10), audit search and export, webhooks, tokens,
// doctor (a person is refused: exit 4), logout; and `events tail` through a TCP proxy that this script cuts in the
// middle, so the CLI must resume from the last event it printed with no gap and no repeat.
//   WARDEN_CLI_JAR (default deploy/cli/target/warden-cli-0.1.0-SNAPSHOT.jar) and JAVA_HOME (a JDK 21+) pick what runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser } from './browser.mjs';
import { newCredentials, patientFetch, sleep, step, truncate, wardenUrl } from './harness.mjs';

const WARDEN_URL = wardenUrl();
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const JAR = process.env.WARDEN_CLI_JAR ?? join(root, 'deploy', 'cli', 'target', 'warden-cli-0.1.0-SNAPSHOT.jar');
const JAVA = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
const configDir = mkdtempSync(join(tmpdir(), 'warden-cli-'));
process.on('exit', () => rmSync(configDir, { recursive: true, force: true }));

/** Starts `warden args...`; resolves {code, stdout, stderr} when it exits. */
function start(args, { input, env } = {}) {
  const child = spawn(JAVA, ['-jar', JAR, ...args], {
    env: { ...process.env, WARDEN_CONFIG_DIR: configDir, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result = { child, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => { result.stdout += d; });
  child.stderr.on('data', (d) => { result.stderr += d; });
  child.stdin.end(input ?? '');
  result.done = new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: result.stdout, stderr: result.stderr })));
  return result;
}

/** Runs `warden args...`; asserts the exit status; returns what it printed. */
async function warden(args, expected = 0, options = {}) {
  const run = await start(args, options).done;
  assert.equal(run.code, expected,
    `warden ${args.join(' ')} exited ${run.code}, expected ${expected}\nstdout: ${truncate(run.stdout, 800)}\nstderr: ${truncate(run.stderr, 800)}`);
  return run;
}

/** Runs `warden -o json args...` and parses what it printed. */
async function json(args, expected = 0) {
  const run = await warden(['-o', 'json', ...args], expected);
  return JSON.parse(run.stdout);
}

async function until(what, condition, ms = 20_000, context = () => '') {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what} ${context()}`);
    }
    await sleep(100);
  }
}

const credentials = newCredentials('cli');
const person = await step('a person signs up (POST /auth/sign-up)', async () => {
  const response = await patientFetch(`${WARDEN_URL}/auth/sign-up`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials),
  });
  const body = await response.json();
  assert.equal(response.status, 201, JSON.stringify(body));
  return body;
});

await step('warden agents list before any sign-in: exit 3 and what to do', async () => {
  const run = await warden(['agents', 'list'], 3);
  assert.match(run.stderr, /not signed in: run `warden login --server <url>`/);
});

await step('warden login: the device grant, approved on the server\'s device page; the profile is owner-only', async () => {
  const login = start(['login', '--server', WARDEN_URL]);
  await until('the code', () => /enter the code [A-Z]{4}-[A-Z]{4}/.test(login.stderr));
  const complete = login.stderr.match(/\(or open (\S+)\)/)[1];
  assert.ok(complete.startsWith(`${WARDEN_URL}/auth/device?user_code=`), complete);
  await new Browser(credentials).approveDevice(complete);
  const done = await login.done;
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, /Signed in to .* as profile 'default' \(device sign-in\)/);
  const file = join(configDir, 'profiles.json');
  assert.equal(statSync(file).mode & 0o777, 0o600, 'profiles.json is readable by its owner only');
  const profiles = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(profiles.current, 'default');
  assert.equal(profiles.profiles.default.clientId, 'warden-cli');
  assert.ok(profiles.profiles.default.refreshToken, 'the refresh token is kept');
});

const agent = await step('warden agents create: permissions in the compact form; the token shown once', async () => {
  const run = await warden(['agents', 'create', 'cli-bot', '--owner', person.user.id, '-p', 'files:*=read,write',
    '-p', 'mcp:github:*=read']);
  assert.match(run.stdout, /^id: +agt_/m);
  assert.match(run.stdout, /^token: +\S{20,}/m);
  assert.match(run.stderr, /not shown again/);
  const id = run.stdout.match(/^id: +(\S+)/m)[1];
  const shown = await json(['agents', 'get', id]);
  assert.deepEqual(shown.permissions.map((p) => `${p.resource}=${p.actions.join(',')}`),
    ['files:*=read,write', 'mcp:github:*=read']);
  assert.equal(shown.token, undefined, 'get never shows the token');
  return shown;
});

await step('warden agents list (a table) and get; a bad permission is a usage error (exit 2)', async () => {
  const run = await warden(['agents', 'list']);
  const [heading, ...rows] = run.stdout.trim().split('\n');
  assert.match(heading, /^ID +NAME +TYPE +STATUS +OWNER +PERMISSIONS$/);
  assert.ok(rows.some((r) => r.startsWith(agent.id) && r.includes('files:*=read,write mcp:github:*=read')), run.stdout);
  const bad = await warden(['agents', 'create', 'x', '--owner', person.user.id, '-p', 'files:*'], 2);
  assert.match(bad.stderr, /a permission is <resource>=<action>/);
});

await step('warden agents suspend, resume, rotate; get of an unknown agent: exit 5 with the problem code', async () => {
  assert.equal((await json(['agents', 'suspend', agent.id])).status, 'suspended');
  assert.equal((await json(['agents', 'resume', agent.id])).status, 'active');
  const rotated = await json(['agents', 'rotate', agent.id]);
  assert.ok(rotated.token, 'rotate shows the new token');
  const missing = await warden(['agents', 'get', 'agt_doesnotexist'], 5);
  assert.match(missing.stderr, /^warden: agent_not_found/m);
  assert.match(missing.stderr, /request id: \S+/);
});

await step('warden authorize: ALLOWED exits 0, DENIED exits 10 with the reason', async () => {
  const allowed = await warden(['authorize', '--agent', agent.id, '--action', 'read', '--resource', 'files:report']);
  assert.match(allowed.stdout, /^ALLOWED +- +aud_/m);
  const denied = await warden(['authorize', '--agent', agent.id, '--action', 'delete', '--resource', 'files:report',
    '--arg', 'force=true'], 10);
  assert.match(denied.stdout, /^DENIED +NO_MATCHING_PERMISSION +aud_/m);
  const decision = await json(['authorize', '--agent', agent.id, '--action', 'read', '--resource', 'mcp:github:x']);
  assert.equal(decision.allowed, true);
});

await step('warden approvals: a call that needs a person waits (exit 10), is listed, approved, then goes through', async () => {
  // A permission with requireApproval (the compact form has no constraints: the REST API makes this agent)
  const response = await patientFetch(`${WARDEN_URL}/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${person.token}` },
    body: JSON.stringify({
      ownerId: person.user.id, name: 'cli-careful', type: 'autonomous',
      permissions: [{ resource: 'payments:*', actions: ['refund'],
        constraints: { requireApproval: { approvers: 'owner', validFor: 'once' } } }],
    }),
  });
  const careful = await response.json();
  assert.equal(response.status, 201, JSON.stringify(careful));
  const ask = ['authorize', '--agent', careful.id, '--action', 'refund', '--resource', 'payments:42'];
  const waiting = await warden(ask, 10);
  assert.match(waiting.stdout, /^DENIED +APPROVAL_REQUIRED +aud_/m);
  const id = waiting.stderr.match(/approval (apr_\S+)/)[1];
  const pending = await json(['approvals', 'list']);
  assert.ok(pending.some((a) => a.id === id && a.status === 'pending'), JSON.stringify(pending));
  const approved = await json(['approvals', 'approve', id, '--note', 'checked with finance']);
  assert.equal(approved.status, 'approved');
  assert.match((await warden(ask)).stdout, /^ALLOWED /m);
  assert.match((await warden(['approvals', 'deny', id], 6)).stderr, /^warden: /m);
});

await step('warden audit search and export (CSV to a file, with progress)', async () => {
  let entries = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    entries = await json(['audit', 'search', '--agent', agent.id, '--limit', '10']);
    if (entries.length >= 3) break;
    await sleep(500);
  }
  assert.ok(entries.length >= 3, `3 decisions in the audit log, got ${entries.length}`);
  assert.ok(entries.some((e) => e.result === 'denied' && e.action === 'delete'));
  const file = join(configDir, 'audit.csv');
  const run = await warden(['audit', 'export', '--agent', agent.id, '--format', 'csv', '-f', file]);
  assert.match(run.stderr, /Exported \d+ bytes to /);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  assert.ok(lines.length >= 4, `a heading and 3 rows: ${lines.length}`);
  assert.match(lines[0], /id/);
});

await step('warden delegations create, list, revoke', async () => {
  const other = await json(['agents', 'create', 'cli-helper', '--owner', person.user.id]);
  const delegation = await json(['delegations', 'create', '--from', agent.id, '--to', other.id, '-p', 'files:*=read']);
  assert.equal(delegation.fromAgent, agent.id);
  const listed = await json(['delegations', 'list', '--from', agent.id]);
  assert.ok(listed.some((d) => d.id === delegation.id));
  const revoked = await warden(['delegations', 'revoke', delegation.id]);
  assert.match(revoked.stderr, /Revoked/);
  assert.ok(!(await json(['delegations', 'list', '--from', agent.id])).some((d) => d.id === delegation.id));
});

await step('warden webhooks create (the secret shown once), list, delete', async () => {
  const hook = await json(['webhooks', 'create', 'http://127.0.0.1:9/hook', '-t', 'agent.revoked']);
  assert.match(hook.secret, /^whsec_/);
  assert.ok((await json(['webhooks', 'list'])).some((w) => w.id === hook.id && w.secret === undefined));
  await warden(['webhooks', 'delete', hook.id]);
  assert.ok(!(await json(['webhooks', 'list'])).some((w) => w.id === hook.id));
});

await step('warden doctor is the administrator\'s: a person gets exit 4 and the problem code', async () => {
  const run = await warden(['doctor'], 4);
  assert.match(run.stderr, /^warden: forbidden/m);
});

// ------------------------------------------------------------------ events tail across a cut connection
const proxy = await step('a TCP proxy to the server, whose connections this script can cut', async () => {
  const target = new URL(WARDEN_URL);
  const sockets = new Set();
  const state = { refusing: false };
  const server = createServer((client) => {
    if (state.refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('error', drop); upstream.on('error', drop); client.on('close', drop); upstream.on('close', drop);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://localhost:${server.address().port}`,
    /** Cuts every connection, and refuses new ones until `reopen`. */
    cut: () => { state.refusing = true; sockets.forEach((s) => s.destroy()); },
    reopen: () => { state.refusing = false; },
  };
});

await step('warden login --with-token keeps an API token as a second profile; profiles list and use', async () => {
  const run = await warden(['--profile', 'proxied', 'login', '--server', proxy.url, '--with-token'], 0,
    { input: `${person.token}\n` });
  assert.match(run.stderr, /as profile 'proxied' \(api token\)/);
  // A login makes its profile the current one; `profiles use` goes back
  let profiles = await warden(['profiles', 'list']);
  assert.match(profiles.stdout, /^\* +proxied +http:\/\/localhost:\d+ +api token$/m);
  await warden(['profiles', 'use', 'default']);
  profiles = await warden(['profiles', 'list']);
  assert.match(profiles.stdout, /^\* +default +http.* +device sign-in$/m);
  assert.match(profiles.stdout, /^ +proxied +http:\/\/localhost:\d+ +api token$/m);
  await warden(['profiles', 'use', 'nope'], 2);
});

await step('warden tokens create (shown once), list, revoke', async () => {
  const issued = await json(['--profile', 'proxied', 'tokens', 'create', 'cli-ci', '-s', 'agents:read']);
  assert.ok(issued.token, 'the token is shown once');
  assert.deepEqual(issued.scopes, ['agents:read']);
  const listed = await json(['--profile', 'proxied', 'tokens', 'list']);
  assert.ok(listed.some((t) => t.id === issued.id && t.token === undefined));
  await warden(['--profile', 'proxied', 'tokens', 'revoke', issued.id]);
  assert.ok(!(await json(['--profile', 'proxied', 'tokens', 'list'])).some((t) => t.id === issued.id));
});

await step('warden events tail: a cut connection resumes from the last event printed, no gap, no repeat', async () => {
  const tail = start(['--profile', 'proxied', '-o', 'json', 'events', 'tail', '-t', 'agent.suspended',
    '-t', 'agent.resumed']);
  await until('the stream to open', () => /Following the event stream/.test(tail.stderr));
  await sleep(500);
  const printed = () => tail.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  await json(['agents', 'suspend', agent.id]);
  await json(['agents', 'resume', agent.id]);
  await until('two events', () => printed().length >= 2, 20_000, () => `stdout: ${tail.stdout} stderr: ${tail.stderr}`);
  // Two more events while the CLI cannot reach the server: only a resume from the last event printed gets them
  proxy.cut();
  await until('the CLI to say it resumes', () => /resuming after \S+/.test(tail.stderr));
  await json(['agents', 'suspend', agent.id]);
  await json(['agents', 'resume', agent.id]);
  proxy.reopen();
  await until('four events', () => printed().length >= 4, 40_000, () => `stdout: ${tail.stdout} stderr: ${tail.stderr}`);
  tail.child.kill('SIGTERM');
  await tail.done;
  const events = printed().filter((e) => e.agentId === agent.id);
  assert.deepEqual(events.map((e) => e.type), ['agent.suspended', 'agent.resumed', 'agent.suspended', 'agent.resumed'],
    tail.stdout);
  assert.equal(new Set(events.map((e) => e.id)).size, 4, 'no event twice');
  proxy.server.close();
});

await step('warden logout revokes the sign-in on the server; the next command is exit 3', async () => {
  const profiles = JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8'));
  const refreshToken = profiles.profiles.default.refreshToken;
  await warden(['logout']);
  await warden(['agents', 'list'], 3);
  const response = await fetch(`${WARDEN_URL}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'warden-cli', refresh_token: refreshToken }),
  });
  assert.equal(response.status, 400, 'the old refresh token is spent');
  assert.equal((await response.json()).error, 'invalid_grant');
});
