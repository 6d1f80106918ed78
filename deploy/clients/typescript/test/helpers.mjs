// Shared by the tests: the server under test, a user of one's own, a fetch that counts, and a TCP proxy whose
// connections the test can cut. The tests import '@warden/client' as installed from the packed tarball
// (deploy/interop/typescript-client.sh), never the sources.
import { randomBytes } from 'node:crypto';
import { createServer, connect } from 'node:net';

/** WARDEN_URL: a running `warden dev` (an origin without a trailing slash). */
export const WARDEN_URL = (() => {
  const value = process.env.WARDEN_URL;
  if (!value) {
    throw new Error('WARDEN_URL is not set (e.g. WARDEN_URL=http://localhost:18080)');
  }
  return value.replace(/\/$/, '');
})();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch, but a 429 with a Retry-After of at most 70 s is waited out and sent again (twice at most). */
export async function patientFetch(input, init) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(input, init);
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status !== 429 || attempt >= 2 || !(retryAfter >= 0 && retryAfter <= 70)) {
      return response;
    }
    await response.body?.cancel();
    console.error(`# 429 from ${init?.method ?? 'GET'} ${input}; retrying in ${retryAfter} s (rate limit)`);
    await sleep(retryAfter * 1000 + 100);
  }
}

/** Signs a new user up (`POST /auth/sign-up`); answers `{ userId, session }`, the session being a bearer token. */
export async function signUp(tag) {
  const username = `ts-${tag}-${randomBytes(6).toString('hex')}`.slice(0, 32);
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const response = await patientFetch(`${WARDEN_URL}/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new Error(`POST /auth/sign-up answered ${response.status}: ${text.slice(0, 500)}`);
  }
  const answer = JSON.parse(text);
  return { userId: answer.user.id, session: answer.token };
}

/**
 * A fetch that records every request (method, URL, headers) and lets a test rewrite answers:
 * `rewrite(url, response)` may answer another Response.
 */
export function recordingFetch(rewrite) {
  const requests = [];
  const wrapped = async (input, init = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    requests.push({ method: init.method ?? 'GET', url, headers: new Headers(init.headers) });
    const response = await fetch(input, init);
    return rewrite ? ((await rewrite(url, response)) ?? response) : response;
  };
  wrapped.requests = requests;
  wrapped.count = (pathname) => requests.filter((r) => r.url.pathname === pathname).length;
  return wrapped;
}

/**
 * A TCP proxy in front of Warden on 127.0.0.1: `url` reaches Warden through it, and `cut()` destroys every
 * connection it holds, as a network failure would.
 */
export async function startProxy(target = WARDEN_URL) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let connections = 0;
  const server = createServer((client) => {
    connections++;
    const upstream = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get connections() {
      return connections;
    },
    cut() {
      for (const socket of sockets) {
        socket.destroy();
      }
    },
    async close() {
      this.cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves with the value of `promise`, or rejects after `ms` saying what was awaited. */
export function within(ms, what, promise) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
