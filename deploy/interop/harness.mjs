// Shared plumbing of the interoperability scripts: the server's URL, one `ok - <step>` line per step, a
// clear message and exit 1 on the first failure, a user of one's own, and fetch that waits out a 429.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

/** The redirect URI every client registers. Nothing listens there: the browser stops at it. */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** WARDEN_URL from the environment (the issuer the server prints, no trailing slash), checked. */
export function wardenUrl() {
  const value = process.env.WARDEN_URL;
  if (!value) {
    fail('WARDEN_URL is not set (e.g. WARDEN_URL=http://localhost:18080); deploy/interop/run.sh starts a server and sets it');
  }
  let url;
  try {
    url = new URL(value);
  } catch {
    fail(`WARDEN_URL is not a URL: ${value}`);
  }
  if (value.endsWith('/') || url.pathname !== '/' || url.search || url.hash) {
    fail(`WARDEN_URL must be the issuer, an origin without a trailing slash, path, query or fragment: ${value}`);
  }
  return value;
}

let failed = false;

/** Runs one step: prints `ok - NAME` when it resolves; prints `not ok - NAME`, the error, and exits 1 when not. */
export async function step(name, fn) {
  if (failed) {
    process.exit(1);
  }
  let result;
  try {
    result = await fn();
  } catch (error) {
    failed = true;
    console.log(`not ok - ${name}`);
    console.error(`${process.argv[1]?.split('/').pop() ?? 'interop'}: step "${name}" failed: ${describe(error)}`);
    process.exit(1);
  }
  console.log(`ok - ${name}`);
  return result;
}

/** Ends the script with a message (outside a step). */
export function fail(message) {
  console.error(`${process.argv[1]?.split('/').pop() ?? 'interop'}: ${message}`);
  process.exit(1);
}

/** An error as a reader needs it: message, the libraries' codes and OAuth fields, the HTTP status, the cause. */
export function describe(error) {
  if (!(error instanceof Error)) {
    return inspect(error, { depth: 5 });
  }
  const parts = [`${error.name}: ${error.message}`];
  for (const key of ['code', 'status', 'error', 'error_description']) {
    if (error[key] !== undefined && typeof error[key] !== 'object') {
      parts.push(`${key}=${error[key]}`);
    }
  }
  if (error.cause instanceof Error) {
    parts.push(`cause: ${describe(error.cause).split('\n').slice(0, 12).join('\n  ')}`);
  } else if (error.cause !== undefined) {
    const cause = error.cause instanceof URLSearchParams ? error.cause.toString() : error.cause;
    parts.push(`cause: ${truncate(typeof cause === 'string' ? cause : inspect(cause, { depth: 6, breakLength: 120 }), 2000)}`);
  }
  if (error.stack && !(error.cause instanceof Error)) {
    parts.push(...error.stack.split('\n').filter((line) => /^\s+at /.test(line)).slice(0, 4).map((line) => line.trim()));
  }
  return parts.join('\n  ');
}

export function truncate(text, max) {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** fetch, but a 429 with a Retry-After of at most 70 s is waited out and the request sent again (twice at most). */
export async function patientFetch(input, init) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(input, init);
    if (response.status !== 429 || attempt >= 2) {
      return response;
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    if (!Number.isFinite(retryAfter) || retryAfter < 0 || retryAfter > 70) {
      return response;
    }
    await response.body?.cancel();
    const url = typeof input === 'string' ? input : input.url ?? String(input);
    console.error(`# 429 from ${init?.method ?? 'GET'} ${url}; retrying in ${retryAfter} s (rate limit)`);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
  }
}

/** A fresh username ([a-z0-9_-], at most 32 characters) and password for this run. */
export function newCredentials(tag) {
  const username = `interop-${tag}-${randomBytes(6).toString('hex')}`.slice(0, 32);
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  return { username, password };
}

/** POST /auth/sign-up with a fresh user; expects 201. Returns { username, password }. */
export async function signUp(baseUrl, tag) {
  const credentials = newCredentials(tag);
  const response = await patientFetch(`${baseUrl}/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = await response.text();
  if (response.status !== 201) {
    throw new Error(`POST /auth/sign-up answered ${response.status}, expected 201: ${truncate(body, 500)}`);
  }
  return credentials;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

process.on('unhandledRejection', (error) => {
  console.error(`unhandled rejection: ${describe(error)}`);
  process.exit(1);
});
