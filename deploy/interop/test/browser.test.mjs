// Unit tests of browser.mjs (node --test deploy/interop/test/browser.test.mjs): form parsing, entity decoding, form filling,
// and the redirect/cookie loop against a tiny local server.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Browser, decodeEntities, fillForm, parseAttributes, parseFirstForm } from '../browser.mjs';

const CREDENTIALS = { username: 'alice_1', password: 'correct horse' };

test('decodeEntities: named, decimal and hex references', () => {
  assert.equal(decodeEntities('a&amp;b &quot;q&quot; &#39;s&#39; &lt;t&gt; &#x2F;x&#X2f; &apos;&nbsp;'),
    'a&b "q" \'s\' <t> /x/ \'\u00a0');
  assert.equal(decodeEntities('&unknown; &#xZZ; & plain'), '&unknown; &#xZZ; & plain');
});

test('parseAttributes: quoting styles, bare attributes, case', () => {
  assert.deepEqual(parseAttributes(` TYPE="hidden" name='csrf' value=abc&amp;d disabled data-x = "1"`),
    { type: 'hidden', name: 'csrf', value: 'abc&d', disabled: '', 'data-x': '1' });
});

const LOGIN = `<!doctype html><html><head><title>Sign in</title></head><body>
<!-- <form action="/decoy"><input name="decoy"></form> -->
<form class="login" method="post" action="/oauth/login?return_to=%2Fmcp%2Fauthorize&amp;x=1">
  <input type="hidden" name="csrf" value="c&#x2F;s&amp;r&quot;f">
  <input type="hidden" name="return_to" value="/mcp/authorize?client_id=abc&amp;state=s1">
  <label>Username <input id="u" name="username" type="text" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" required></label>
  <input type="checkbox" name="remember" value="yes">
  <input type="text" name="disabled_one" value="x" disabled>
  <input type="submit" value="Sign in">
</form>
<form action="/second"><input name="second"></form>
</body></html>`;

test('parseFirstForm: the sign-in page', () => {
  const form = parseFirstForm(LOGIN, new URL('http://localhost:8080/oauth/login?return_to=x'));
  assert.equal(form.method, 'POST');
  assert.equal(form.action, 'http://localhost:8080/oauth/login?return_to=%2Fmcp%2Fauthorize&x=1');
  assert.deepEqual(form.fields.map((f) => [f.name, f.type, f.value]), [
    ['csrf', 'hidden', 'c/s&r"f'],
    ['return_to', 'hidden', '/mcp/authorize?client_id=abc&state=s1'],
    ['username', 'text', ''],
    ['password', 'password', ''],
    ['remember', 'checkbox', 'yes'],
  ]);
  const values = fillForm(form, CREDENTIALS);
  assert.equal(values.toString(), new URLSearchParams([
    ['csrf', 'c/s&r"f'],
    ['return_to', '/mcp/authorize?client_id=abc&state=s1'],
    ['username', 'alice_1'],
    ['password', 'correct horse'],
  ]).toString());
});

const CONSENT = `<html><body><h1>Allow &quot;My client&quot;?</h1>
<FORM METHOD=post>
<input type=hidden name=client_id value=abc>
<input type='hidden' name='redirect_uri' value='http:&#x2F;&#x2F;127.0.0.1:9&#x2F;callback'>
<input type="hidden" name="scope" value="agents:read dashboard:read">
<input type="hidden" name="csrf" value="tok">
<button type="submit" name="decision" value="deny">Deny</button>
<button name="decision" value="allow" class="primary">Allow</button>
</FORM></body></html>`;

test('parseFirstForm: the consent page (empty action = the page, upper-case tags, allow button)', () => {
  const page = new URL('http://localhost:8080/oauth/consent?client_id=abc&state=s1');
  const form = parseFirstForm(CONSENT, page);
  assert.equal(form.method, 'POST');
  assert.equal(form.action, page.href);
  assert.deepEqual(form.buttons, [{ name: 'decision', value: 'deny' }, { name: 'decision', value: 'allow' }]);
  const values = fillForm(form, CREDENTIALS);
  assert.equal(values.get('redirect_uri'), 'http://127.0.0.1:9/callback');
  assert.equal(values.get('decision'), 'allow');
  assert.deepEqual(values.getAll('decision'), ['allow']);
  assert.equal(values.get('scope'), 'agents:read dashboard:read');
});

test('parseFirstForm: no form', () => {
  assert.equal(parseFirstForm('<p>nothing</p>', 'http://x/'), undefined);
});

/** A miniature authorization server: authorize -> login -> authorize -> consent -> redirect_uri. */
function miniServer() {
  const seen = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push(`${req.method} ${url.pathname} cookie=${req.headers.cookie ?? ''}`);
    const session = /(?:^|; )sid=ok(?:;|$)/.test(req.headers.cookie ?? '');
    if (url.pathname === '/authorize') {
      if (!session) {
        res.writeHead(302, { location: `/login?return_to=${encodeURIComponent(url.pathname + url.search)}`, 'set-cookie': 'pre=1; Path=/' });
        return res.end();
      }
      res.writeHead(302, { location: `/consent${url.search}` });
      return res.end();
    }
    if (url.pathname === '/login' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<form method="post" action=""><input type="hidden" name="return_to" value="${url.searchParams.get('return_to').replace(/&/g, '&amp;')}"><input name="username"><input type="password" name="password"></form>`);
    }
    if (url.pathname === '/login') {
      const form = new URLSearchParams(body);
      if (form.get('username') !== 'alice_1' || form.get('password') !== 'correct horse' || !/pre=1/.test(req.headers.cookie ?? '')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<form method="post"><input type="password" name="password"></form>');
      }
      res.writeHead(303, { location: form.get('return_to'), 'set-cookie': ['sid=ok; HttpOnly; Path=/', 'pre=; Max-Age=0'] });
      return res.end();
    }
    if (url.pathname === '/consent' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<form method="post" action="/consent"><input type="hidden" name="state" value="${url.searchParams.get('state')}"><button name="decision" value="deny">No</button><button name="decision" value="allow">Yes</button></form>`);
    }
    if (url.pathname === '/consent') {
      const form = new URLSearchParams(body);
      res.writeHead(303, { location: `http://127.0.0.1:9/callback?code=c1&state=${form.get('state')}&decision=${form.get('decision')}` });
      return res.end();
    }
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('unexpected');
  });
  return { server, seen };
}

test('Browser.authorize: follows sign-in and consent, keeps cookies, stops at the redirect URI', async () => {
  const { server, seen } = miniServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const browser = new Browser(CREDENTIALS);
    const callback = await browser.authorize(`${base}/authorize?client_id=abc&state=s%201`, 'http://127.0.0.1:9/callback');
    assert.equal(callback.searchParams.get('code'), 'c1');
    assert.equal(callback.searchParams.get('state'), 's 1');
    assert.equal(callback.searchParams.get('decision'), 'allow');
    assert.equal(browser.cookies.get('sid'), 'ok');
    assert.equal(browser.cookies.has('pre'), false, 'an expired cookie is dropped');
    assert.deepEqual(seen.map((s) => s.split(' cookie=')[0]),
      ['GET /authorize', 'GET /login', 'POST /login', 'GET /authorize', 'GET /consent', 'POST /consent']);
    // With the session, a second authorization skips the sign-in page.
    seen.length = 0;
    await browser.authorize(`${base}/authorize?client_id=abc&state=s2`, 'http://127.0.0.1:9/callback');
    assert.deepEqual(seen.map((s) => s.split(' cookie=')[0]), ['GET /authorize', 'GET /consent', 'POST /consent']);
  } finally {
    server.close();
  }
});

test('Browser.authorize: wrong password -> a clear error, not a loop', async () => {
  const { server } = miniServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const browser = new Browser({ username: 'alice_1', password: 'wrong' });
    await assert.rejects(browser.authorize(`http://127.0.0.1:${server.address().port}/authorize?state=x`, 'http://127.0.0.1:9/callback'),
      /sign-in page came back/);
  } finally {
    server.close();
  }
});

test('Browser.authorize: an unexpected status -> error with status and body', async () => {
  const { server } = miniServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const browser = new Browser(CREDENTIALS);
    await assert.rejects(browser.authorize(`http://127.0.0.1:${server.address().port}/nowhere`, 'http://127.0.0.1:9/callback'),
      /unexpected 500 \(text\/plain\): unexpected/);
  } finally {
    server.close();
  }
});
