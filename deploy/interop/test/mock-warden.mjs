// A stand-in for Warden's OAuth 2.1 / MCP surface, only to test the interoperability harness itself
// (test/self-test.sh): it follows the contract the scripts expect (README.md, "The contract"), strictly where
// the client libraries are strict. It is not Warden, and passing against it proves nothing about Warden.
//   node deploy/interop/test/mock-warden.mjs [PORT]    prints "  URL:             http://localhost:PORT"
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
// MOCK_FAULT=name breaks one rule, to check that the scripts notice (test/self-test.sh): no-iss, no-rotation,
// no-family-revocation, no-resource-metadata, token-never-expires, basic-not-form-decoded.
const faults = new Set((process.env.MOCK_FAULT ?? '').split(',').filter(Boolean));
const fault = (name) => faults.has(name);
const accessTtl = Number(process.env.WARDEN_OAUTH_ACCESS__TOKEN__TTL__SECONDS ?? 3600);
let base = '';

const users = new Map(); // username -> password
const sessions = new Map(); // sid -> username
const csrfTokens = new Set();
const clients = new Map(); // client_id -> registration
const codes = new Map(); // code -> grant
const accessTokens = new Map(); // token -> { client_id, sub, scope, exp, resource }
const refreshTokens = new Map(); // token -> { family, client_id, sub, scope, resource, used, revoked }
const revokedFamilies = new Set();
const consents = new Set(); // `${user} ${client_id}`
const SCOPE = 'agents:read dashboard:read audit:read authorize:write';
const TOOLS = ['list_agents', 'get_agent', 'query_audit', 'dashboard_stats', 'check_authorization'];

const id = (prefix) => `${prefix}_${randomBytes(18).toString('base64url')}`;
const now = () => Math.floor(Date.now() / 1000);
const escapeHtml = (s) => String(s).replace(/[&<>"'\/]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;' })[c]);

function send(res, status, body, headers = {}) {
  const isJson = body !== undefined && typeof body !== 'string';
  res.writeHead(status, {
    ...(isJson ? { 'content-type': 'application/json' } : {}),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(isJson ? JSON.stringify(body) : body);
}
const oauthError = (res, status, error, description, headers) =>
  send(res, status, { error, error_description: description }, headers);
const redirect = (res, status, location, headers = {}) => send(res, status, '', { location, ...headers });
const html = (res, body, headers = {}) => send(res, 200, `<!doctype html><html><body>${body}</body></html>`,
  { 'content-type': 'text/html; charset=utf-8', ...headers });

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function cookies(req) {
  return Object.fromEntries((req.headers.cookie ?? '').split(';').map((c) => c.trim()).filter(Boolean)
    .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]));
}

/** Client authentication at the token, introspection and revocation endpoints (RFC 6749 2.3.1). */
function authenticateClient(req, form) {
  const header = req.headers.authorization ?? '';
  let clientId;
  let secret;
  let method;
  if (header.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // The client id and secret are form-urlencoded before Base64 (oauth4webapi encodes '-', '_', '.' too).
    const formDecode = (s) => (fault('basic-not-form-decoded') ? s : decodeURIComponent(s.replace(/\+/g, ' ')));
    clientId = formDecode(decoded.slice(0, colon));
    secret = formDecode(decoded.slice(colon + 1));
    method = 'client_secret_basic';
  } else if (form.get('client_secret') !== null) {
    clientId = form.get('client_id');
    secret = form.get('client_secret');
    method = 'client_secret_post';
  } else {
    clientId = form.get('client_id');
    method = 'none';
  }
  const client = clients.get(clientId);
  if (!client || client.token_endpoint_auth_method !== method) {
    return undefined;
  }
  if (method !== 'none') {
    const a = Buffer.from(secret ?? '');
    const b = Buffer.from(client.client_secret);
    if (a.length !== b.length || !timingSafeEqual(a, b)) {
      return undefined;
    }
  }
  return client;
}

function bearer(req) {
  const header = req.headers.authorization ?? '';
  if (!header.toLowerCase().startsWith('bearer ')) {
    return { missing: true };
  }
  const token = accessTokens.get(header.slice(7).trim());
  if (!token || (token.exp <= now() && !fault('token-never-expires'))) {
    return { invalid: true };
  }
  return { token };
}

function issueTokens(grant, family = id('fam'), previousRefresh = undefined) {
  const access = id('at');
  const refresh = previousRefresh && fault('no-rotation') ? previousRefresh : id('rt');
  accessTokens.set(access, { client_id: grant.client_id, sub: grant.sub, scope: grant.scope, exp: now() + accessTtl,
    resource: grant.resource });
  refreshTokens.set(refresh, { family, client_id: grant.client_id, sub: grant.sub, scope: grant.scope,
    resource: grant.resource, used: false, revoked: false });
  return { access_token: access, token_type: 'Bearer', expires_in: accessTtl, refresh_token: refresh, scope: grant.scope };
}

/** Checks an authorization request; returns { client, params } or writes the error. */
function checkAuthorizationRequest(res, params) {
  const client = clients.get(params.get('client_id'));
  if (!client || !client.redirect_uris.includes(params.get('redirect_uri'))) {
    send(res, 400, 'unknown client or redirect_uri', { 'content-type': 'text/plain' });
    return undefined;
  }
  if (params.get('response_type') !== 'code' || params.get('code_challenge_method') !== 'S256'
    || !params.get('code_challenge')) {
    const to = new URL(params.get('redirect_uri'));
    to.searchParams.set('error', 'invalid_request');
    to.searchParams.set('iss', base);
    redirect(res, 302, to.href);
    return undefined;
  }
  return client;
}

function issueCode(res, params, username) {
  const code = id('code');
  codes.set(code, {
    client_id: params.get('client_id'), redirect_uri: params.get('redirect_uri'), challenge: params.get('code_challenge'),
    sub: `user:${username}`, resource: params.get('resource') ?? undefined, scope: params.get('scope') || SCOPE,
    exp: now() + 60,
  });
  const to = new URL(params.get('redirect_uri'));
  to.searchParams.set('code', code);
  if (params.get('state') !== null) {
    to.searchParams.set('state', params.get('state'));
  }
  if (!fault('no-iss')) {
    to.searchParams.set('iss', base);
  }
  redirect(res, 303, to.href);
}

function challenge(res, error) {
  send(res, 401, { error: 'unauthorized' }, {
    'www-authenticate': fault('no-resource-metadata') ? `Bearer${error ? ` error="${error}"` : ''}`
      : `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
  });
}

async function handle(req, res) {
  const url = new URL(req.url, base);
  const path = url.pathname;
  const method = req.method;
  const body = method === 'POST' ? await readBody(req) : '';
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  const form = contentType === 'application/x-www-form-urlencoded' ? new URLSearchParams(body) : new URLSearchParams();

  if (method === 'GET' && path === '/observe/health') {
    return send(res, 200, { status: 'UP' });
  }
  if (method === 'POST' && path === '/auth/sign-up') {
    const { username, password } = JSON.parse(body);
    if (!/^[a-z0-9_-]{3,32}$/i.test(username ?? '') || (password ?? '').length < 8 || users.has(username)) {
      return send(res, 400, { code: 'invalid' });
    }
    users.set(username, password);
    return send(res, 201, { username });
  }
  if (method === 'GET' && path === '/.well-known/oauth-authorization-server') {
    return send(res, 200, {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/mcp/register`,
      introspection_endpoint: `${base}/oauth/introspect`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
      scopes_supported: SCOPE.split(' '),
    });
  }
  if (method === 'GET' && (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource')) {
    return send(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], bearer_methods_supported: ['header'] });
  }
  if (method === 'POST' && path === '/mcp/register') {
    const metadata = JSON.parse(body);
    if (!Array.isArray(metadata.redirect_uris) || !metadata.redirect_uris.length) {
      return oauthError(res, 400, 'invalid_redirect_uri', 'redirect_uris required');
    }
    const authMethod = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
    const registration = {
      ...metadata,
      client_id: id('client'),
      client_id_issued_at: now(),
      token_endpoint_auth_method: authMethod,
      ...(authMethod === 'none' ? {} : { client_secret: id('secret'), client_secret_expires_at: 0 }),
    };
    clients.set(registration.client_id, registration);
    return send(res, 201, registration);
  }
  if (method === 'GET' && (path === '/oauth/authorize' || path === '/mcp/authorize')) {
    if (!checkAuthorizationRequest(res, url.searchParams)) {
      return undefined;
    }
    const username = sessions.get(cookies(req).warden_session);
    if (!username) {
      return redirect(res, 302, `/oauth/login?return_to=${encodeURIComponent(path + url.search)}`);
    }
    if (consents.has(`${username} ${url.searchParams.get('client_id')}`)) {
      return issueCode(res, url.searchParams, username);
    }
    return redirect(res, 302, `/oauth/consent${url.search}`);
  }
  if (path === '/oauth/login') {
    if (method === 'GET') {
      const csrf = id('csrf');
      csrfTokens.add(csrf);
      return html(res, `<h1>Sign in</h1><!-- <form action="/wrong"> -->
        <form method="post" action="/oauth/login?x=1&amp;y=2">
        <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
        <input type="hidden" name="return_to" value="${escapeHtml(url.searchParams.get('return_to'))}">
        <label>Username <input type="text" name="username" autocomplete="username"></label>
        <label>Password <input type="password" name="password"></label>
        <button type="submit">Sign in</button></form>`);
    }
    if (!csrfTokens.delete(form.get('csrf')) || url.searchParams.get('y') !== '2') {
      return send(res, 403, 'bad csrf', { 'content-type': 'text/plain' });
    }
    const username = form.get('username');
    if (users.get(username) !== form.get('password')) {
      return html(res, '<p>Wrong username or password</p><form method="post"><input type="password" name="password"></form>');
    }
    const sid = id('sid');
    sessions.set(sid, username);
    const returnTo = form.get('return_to');
    return redirect(res, 303, returnTo.startsWith('/') ? returnTo : '/', {
      'set-cookie': [`warden_session=${sid}; Path=/; HttpOnly; SameSite=Lax`, 'stale=; Max-Age=0; Path=/'],
    });
  }
  if (path === '/oauth/consent') {
    const username = sessions.get(cookies(req).warden_session);
    if (!username) {
      return send(res, 401, 'no session', { 'content-type': 'text/plain' });
    }
    if (method === 'GET') {
      if (!checkAuthorizationRequest(res, url.searchParams)) {
        return undefined;
      }
      const csrf = id('csrf');
      csrfTokens.add(csrf);
      const hidden = [...url.searchParams, ['csrf', csrf]]
        .map(([k, v]) => `<input type='hidden' name='${escapeHtml(k)}' value='${escapeHtml(v)}'>`).join('\n');
      return html(res, `<h1>Allow ${escapeHtml(clients.get(url.searchParams.get('client_id')).client_name)}?</h1>
        <form method="POST" action="">${hidden}
        <button type="submit" name="decision" value="deny">Deny</button>
        <button type="submit" name="decision" value="allow">Allow</button></form>`);
    }
    if (!csrfTokens.delete(form.get('csrf'))) {
      return send(res, 403, 'bad csrf', { 'content-type': 'text/plain' });
    }
    if (!checkAuthorizationRequest(res, form)) {
      return undefined;
    }
    if (form.get('decision') !== 'allow') {
      const to = new URL(form.get('redirect_uri'));
      to.searchParams.set('error', 'access_denied');
      to.searchParams.set('iss', base);
      return redirect(res, 303, to.href);
    }
    consents.add(`${username} ${form.get('client_id')}`);
    return issueCode(res, form, username);
  }
  if (method === 'POST' && (path === '/oauth/token' || path === '/mcp/token')) {
    const client = authenticateClient(req, form);
    if (!client) {
      return oauthError(res, 401, 'invalid_client', 'client authentication failed');
    }
    if (form.get('grant_type') === 'authorization_code') {
      const grant = codes.get(form.get('code'));
      codes.delete(form.get('code'));
      const verifier = form.get('code_verifier') ?? '';
      const challengeOk = grant && createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
      if (!grant || grant.exp < now() || grant.client_id !== client.client_id
        || grant.redirect_uri !== form.get('redirect_uri') || !challengeOk) {
        return oauthError(res, 400, 'invalid_grant', 'bad code');
      }
      if (form.get('resource') !== null && form.get('resource') !== grant.resource) {
        return oauthError(res, 400, 'invalid_target', 'resource differs from the authorization request');
      }
      return send(res, 200, issueTokens(grant));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const token = refreshTokens.get(form.get('refresh_token'));
      if (!token || token.client_id !== client.client_id || token.revoked || revokedFamilies.has(token.family)) {
        return oauthError(res, 400, 'invalid_grant', 'refresh token not valid');
      }
      if (token.used && !fault('no-rotation')) {
        if (!fault('no-family-revocation')) {
          revokedFamilies.add(token.family);
        }
        return oauthError(res, 400, 'invalid_grant', 'refresh token reused; its family is revoked');
      }
      token.used = true;
      if (fault('no-rotation')) {
        token.used = false;
      }
      return send(res, 200, issueTokens(token, token.family, form.get('refresh_token')));
    }
    return oauthError(res, 400, 'unsupported_grant_type', 'no');
  }
  if (method === 'POST' && path === '/oauth/introspect') {
    const client = authenticateClient(req, form);
    if (!client) {
      return oauthError(res, 401, 'invalid_client', 'client authentication failed');
    }
    const token = form.get('token');
    const access = accessTokens.get(token);
    if (access && access.exp > now()) {
      return send(res, 200, { active: true, client_id: access.client_id, sub: access.sub, scope: access.scope,
        exp: access.exp, token_type: 'Bearer', iss: base });
    }
    const refresh = refreshTokens.get(token);
    if (refresh && !refresh.used && !refresh.revoked && !revokedFamilies.has(refresh.family)) {
      return send(res, 200, { active: true, client_id: refresh.client_id, sub: refresh.sub, scope: refresh.scope });
    }
    return send(res, 200, { active: false });
  }
  if (method === 'POST' && path === '/oauth/revoke') {
    const client = authenticateClient(req, form);
    if (!client) {
      return oauthError(res, 401, 'invalid_client', 'client authentication failed');
    }
    const refresh = refreshTokens.get(form.get('token'));
    if (refresh && refresh.client_id === client.client_id) {
      refresh.revoked = true;
    }
    accessTokens.delete(form.get('token'));
    return send(res, 200, '');
  }
  if (method === 'GET' && path === '/agents') {
    const auth = bearer(req);
    return auth.token ? send(res, 200, { agents: [] }) : send(res, 401, { error: 'unauthorized' });
  }
  if (path === '/mcp') {
    const auth = bearer(req);
    if (!auth.token) {
      return challenge(res, auth.invalid ? 'invalid_token' : undefined);
    }
    if (auth.token.resource !== `${base}/mcp`) {
      return challenge(res, 'invalid_token');
    }
    if (method !== 'POST') {
      return send(res, 405, '', { allow: 'POST' });
    }
    const message = JSON.parse(body);
    if (message.id === undefined) {
      return send(res, 202, '');
    }
    const reply = (result) => send(res, 200, { jsonrpc: '2.0', id: message.id, result }, { 'mcp-session-id': 'mock-session' });
    switch (message.method) {
      case 'initialize':
        return reply({ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} },
          serverInfo: { name: 'mock-warden', version: '0' } });
      case 'tools/list':
        return reply({ tools: TOOLS.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })) });
      case 'tools/call':
        return reply({ content: [{ type: 'text', text: JSON.stringify({ tool: message.params.name }) }] });
      default:
        return send(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not found' } });
    }
  }
  return send(res, 404, { error: 'not_found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error(error);
    send(res, 500, { error: 'server_error' });
  });
});
server.listen(port, '127.0.0.1', () => {
  base = `http://localhost:${server.address().port}`;
  console.log(`\nMock Warden is ready\n  URL:             ${base}\n`);
});
