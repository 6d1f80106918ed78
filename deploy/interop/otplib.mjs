// otplib 12.0.1, an independent RFC 6238 implementation, against Warden's TOTP: enrolment with the secret Warden
// hands out, a password sign-in answered by the challenge and a code otplib computed, and a code that is refused.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/otplib.mjs
import assert from 'node:assert/strict';
import otplib from 'otplib';
import { patientFetch, signUp, step, wardenUrl } from './harness.mjs';

const { authenticator } = otplib;
const WARDEN_URL = wardenUrl();

async function call(method, path, body, token) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await patientFetch(`${WARDEN_URL}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, text };
}

const user = await step('sign up a user (POST /auth/sign-up -> 201)', () => signUp(WARDEN_URL, 'totp'));
const session = await step('sign in with the password (no TOTP yet) -> 200', async () => {
  const r = await call('POST', '/auth/sign-in', { username: user.username, password: user.password });
  assert.equal(r.status, 200, r.text);
  return r.json.token;
});

const secret = await step('enrol: the secret and otpauth URI are what otplib expects', async () => {
  const r = await call('POST', '/auth/totp/enrol', undefined, session);
  assert.equal(r.status, 201, r.text);
  const uri = new URL(r.json.otpauthUri);
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.searchParams.get('secret'), r.json.secret);
  assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
  assert.equal(uri.searchParams.get('digits'), '6');
  assert.equal(uri.searchParams.get('period'), '30');
  assert.ok(authenticator.check(authenticator.generate(r.json.secret), r.json.secret), 'otplib takes the secret');
  return r.json.secret;
});

await step('confirm with otplib\'s current code -> 200 and ten recovery codes', async () => {
  const r = await call('POST', '/auth/totp/confirm', { code: authenticator.generate(secret) }, session);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.recoveryCodes.length, 10);
});

const challenge = await step('a password sign-in now answers 401 totp_required with a challenge', async () => {
  const r = await call('POST', '/auth/sign-in', { username: user.username, password: user.password });
  assert.equal(r.status, 401, r.text);
  assert.equal(r.json.code, 'totp_required');
  return r.json.challenge;
});

await step('a code otplib computes for no nearby step -> 401 totp_invalid', async () => {
  const far = authenticator.clone({ epoch: Date.now() + 10 * 60 * 1000 }).generate(secret);
  const r = await call('POST', '/auth/totp/verify', { challenge, code: far });
  assert.equal(r.status, 401, r.text);
  assert.equal(r.json.code, 'totp_invalid');
});

await step('the next step\'s code from otplib (one step of drift) signs in -> 200, amr pwd otp mfa', async () => {
  // The confirmation used the current step: the next one is the first Warden accepts again.
  const next = authenticator.clone({ epoch: Date.now() + 30 * 1000 }).generate(secret);
  const r = await call('POST', '/auth/totp/verify', { challenge, code: next });
  assert.equal(r.status, 200, r.text);
  const current = await call('GET', '/auth/session', undefined, r.json.token);
  assert.deepEqual(current.json.session.amr, ['pwd', 'otp', 'mfa']);
});
