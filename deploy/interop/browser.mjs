// The "browser" of the interoperability scripts: follows an authorization request through the server's
// sign-in and consent pages over plain HTTP (fetch with redirect: 'manual' and a cookie jar of its own) and
// stops at the client's redirect URI without fetching it.
//
// The contract it expects (generic enough for small deviations): GET the authorization endpoint without a
// session -> 302 to a sign-in page; that page has a form (hidden csrf, return_to, username, password); posting
// it -> 303 back to the authorization request with a session cookie -> 302 to a consent page whose form has
// hidden fields and <button name="decision" value="allow">; posting allow -> 303 to redirect_uri?code=...&state=...&iss=...
// With consent remembered, the authorization request redirects straight to the redirect URI.

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_STEPS = 12;

export class Browser {
  /**
   * @param {{username: string, password: string}} credentials what the sign-in form gets
   * @param {{fetch?: typeof fetch}} [options]
   */
  constructor(credentials, options = {}) {
    this.credentials = credentials;
    this.fetch = options.fetch ?? fetch;
    /** name -> value */
    this.cookies = new Map();
    /** What the last authorize() did, one line per request, for error messages. */
    this.trail = [];
  }

  /**
   * Follows `authorizationUrl` until a redirect to `redirectUri` (a prefix); returns that URL without fetching it.
   * @param {URL|string} authorizationUrl
   * @param {string} redirectUri
   * @returns {Promise<URL>}
   */
  async authorize(authorizationUrl, redirectUri) {
    this.trail = [];
    let request = { method: 'GET', url: new URL(String(authorizationUrl)), body: undefined };
    let signedIn = false;
    for (let stepNo = 0; stepNo < MAX_STEPS; stepNo++) {
      const response = await this.send(request);
      const status = response.status;
      if (REDIRECTS.has(status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location) {
          throw this.error(`${status} without a Location header`);
        }
        const next = new URL(location, request.url);
        if (redirectUri !== null && next.href.startsWith(redirectUri)) {
          this.trail.push(`  -> ${next.href} (the redirect URI: stop)`);
          return next;
        }
        // 307/308 keep the method and body, as a browser does; the others become a GET.
        request = status === 307 || status === 308
          ? { method: request.method, url: next, body: request.body, contentType: request.contentType }
          : { method: 'GET', url: next, body: undefined };
        continue;
      }
      const contentType = response.headers.get('content-type') ?? '';
      const text = await response.text();
      if (status !== 200 || !/^text\/html\b/i.test(contentType)) {
        throw this.error(`unexpected ${status} (${contentType || 'no content type'}): ${text.slice(0, 500)}`);
      }
      const form = parseFirstForm(text, request.url);
      if (!form) {
        if (redirectUri === null) {
          return text;
        }
        throw this.error(`a 200 page without a <form>: ${text.slice(0, 500)}`);
      }
      const isSignIn = form.fields.some((f) => f.type === 'password');
      if (isSignIn && signedIn) {
        throw this.error(`the sign-in page came back after signing in as ${this.credentials.username} (wrong credentials?): ${text.slice(0, 500)}`);
      }
      signedIn ||= isSignIn;
      const values = fillForm(form, this.credentials);
      if (form.method === 'GET') {
        const url = new URL(form.action);
        url.search = values.toString();
        request = { method: 'GET', url, body: undefined };
      } else {
        request = { method: 'POST', url: new URL(form.action), body: values.toString(),
          contentType: 'application/x-www-form-urlencoded' };
      }
    }
    throw this.error(`no redirect to ${redirectUri ?? 'a page without a form'} after ${MAX_STEPS} requests`);
  }

  /**
   * Follows a device verification link (RFC 8628 verification_uri_complete) through sign-in, the code and the
   * approval, until a page without a form; returns that page's HTML.
   * @param {URL|string} verificationUrl
   * @returns {Promise<string>}
   */
  async approveDevice(verificationUrl) {
    return this.authorize(verificationUrl, null);
  }

  async send({ method, url, body, contentType }) {
    const headers = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
    if (this.cookies.size) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    if (body !== undefined) {
      headers['content-type'] = contentType;
    }
    let response;
    try {
      response = await this.fetch(url.href, { method, headers, body, redirect: 'manual' });
    } catch (error) {
      throw this.error(`${method} ${url.href} failed: ${error.message}`, error);
    }
    this.trail.push(`${method} ${url.href} -> ${response.status}${response.headers.get('location') ? ` Location: ${response.headers.get('location')}` : ''}`);
    this.storeCookies(response.headers);
    return response;
  }

  storeCookies(headers) {
    const lines = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key, v = ''] = a.split('=').map((s) => s.trim());
        return (key.toLowerCase() === 'max-age' && Number(v) <= 0)
          || (key.toLowerCase() === 'expires' && Date.parse(v) < Date.now());
      });
      if (expired || value === '') {
        this.cookies.delete(name);
      } else {
        this.cookies.set(name, value);
      }
    }
  }

  error(message, cause) {
    return new Error(`browser: ${message}\n  requests so far:\n    ${this.trail.join('\n    ')}`, cause ? { cause } : undefined);
  }
}

/** The form fields to submit: every named input (submit buttons aside), the credentials, and the allow decision. */
export function fillForm(form, credentials) {
  const values = new URLSearchParams();
  for (const field of form.fields) {
    if (['submit', 'button', 'image', 'reset', 'file'].includes(field.type)) {
      continue;
    }
    if ((field.type === 'checkbox' || field.type === 'radio') && !field.checked) {
      continue;
    }
    let value = field.value;
    if (field.type === 'password' || field.name === 'password') {
      value = credentials.password;
    } else if (field.name === 'username' || (/^(user(name)?|login|email)$/i.test(field.name) && field.type !== 'hidden')) {
      value = credentials.username;
    }
    values.append(field.name, value);
  }
  const submitter = chooseSubmitter(form);
  if (submitter) {
    values.append(submitter.name, submitter.value);
  }
  return values;
}

/** The button to press: decision=allow (or another allowing value), else the only named submit button. */
function chooseSubmitter(form) {
  const buttons = form.buttons.filter((b) => b.name);
  return buttons.find((b) => b.name === 'decision' && b.value === 'allow')
    ?? buttons.find((b) => /^(allow|approve|accept|authori[sz]e|consent|yes)$/i.test(b.value))
    ?? (buttons.length === 1 ? buttons[0] : undefined);
}

/**
 * The first <form> of an HTML page: method (upper case, default GET), action resolved against the page URL
 * (empty or missing = the page itself), its <input>s with a name and its named submit buttons
 * (<button> and <input type=submit>).
 * @returns {{method: string, action: string, fields: {name: string, type: string, value: string, checked: boolean}[], buttons: {name: string, value: string}[]} | undefined}
 */
export function parseFirstForm(html, pageUrl) {
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, '');
  const open = /<form\b([^>]*)>/i.exec(withoutComments);
  if (!open) {
    return undefined;
  }
  const rest = withoutComments.slice(open.index + open[0].length);
  const close = /<\/form\s*>/i.exec(rest);
  const inner = close ? rest.slice(0, close.index) : rest;
  const formAttributes = parseAttributes(open[1]);
  const action = formAttributes.action ?? '';
  const form = {
    method: (formAttributes.method || 'GET').toUpperCase(),
    action: new URL(action.trim() === '' ? String(pageUrl) : action.trim(), pageUrl).href,
    fields: [],
    buttons: [],
  };
  const tags = /<(input|button)\b([^>]*)>/gi;
  for (let m; (m = tags.exec(inner));) {
    const attributes = parseAttributes(m[2]);
    const tag = m[1].toLowerCase();
    const type = (attributes.type ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
    if (tag === 'button' || type === 'submit' || type === 'image') {
      if (type === 'submit' || type === 'image') {
        form.buttons.push({ name: attributes.name ?? '', value: attributes.value ?? '' });
      }
      continue;
    }
    if (attributes.name === undefined || attributes.name === '' || 'disabled' in attributes) {
      continue;
    }
    form.fields.push({ name: attributes.name, type, value: attributes.value ?? '', checked: 'checked' in attributes });
  }
  return form;
}

/** Attributes of a start tag (names lower-cased, values entity-decoded; a bare attribute has the value ''). */
export function parseAttributes(text) {
  const attributes = {};
  const re = /([^\s"'<>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (let m; (m = re.exec(text));) {
    const name = m[1].toLowerCase();
    if (!(name in attributes)) {
      attributes[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
    }
  }
  return attributes;
}

const NAMED = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: '\u00a0', sol: '/', equals: '=', colon: ':' };

/** Decodes &amp; &quot; &#39; &lt; &gt; &#x2F; and the other numeric and common named references. */
export function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}
