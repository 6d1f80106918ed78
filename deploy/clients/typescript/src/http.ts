/**
 * The HTTP plumbing the client and the stream share: URLs under the base URL, the bearer token, JSON bodies, and
 * refusals turned into {@link WardenError}s.
 *
 * @packageDocumentation
 */
import type { TokenSource } from './credentials.js';
import { WardenError } from './errors.js';

/** Query parameters; `undefined` values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

interface SendOptions extends CallOptions {
  query?: Query | undefined;
  /** A JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
}

/** Sends authenticated requests to one Warden. */
export class Transport {
  readonly baseUrl: URL;
  readonly fetch: typeof fetch;
  readonly #auth: TokenSource;

  constructor(baseUrl: URL, fetchImpl: typeof fetch, auth: TokenSource) {
    this.baseUrl = baseUrl;
    this.fetch = fetchImpl;
    this.#auth = auth;
  }

  /** The absolute URL of `path` (which starts with `/`) under the base URL, with `query`. */
  url(path: string, query?: Query): URL {
    const base = this.baseUrl.pathname.replace(/\/$/, '');
    const url = new URL(base + path, this.baseUrl.origin);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) {
        url.searchParams.set(name, String(value));
      }
    }
    return url;
  }

  /** Sends a request and answers its JSON body (`undefined` for 204); a status outside 2xx rejects. */
  async json<T>(method: string, path: string, options: SendOptions = {}): Promise<T> {
    const response = await this.send(method, path, { ...options, headers: { accept: 'application/json' } });
    if (response.status === 204) {
      await response.body?.cancel();
      return undefined as T;
    }
    return (await response.json()) as T;
  }

  /**
   * Sends a request with the bearer token and answers the response when its status is 2xx; otherwise rejects with
   * a {@link WardenError}. A 401 to a token the source can renew is sent once more with a new token.
   */
  async send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
    const url = this.url(path, options.query);
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    for (let attempt = 0; ; attempt++) {
      const token = await this.#auth.token(options.signal);
      const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${token}` };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
      }
      const init: RequestInit = { method, headers };
      if (body !== undefined) {
        init.body = body;
      }
      if (options.signal !== undefined) {
        init.signal = options.signal;
      }
      const response = await this.fetch(url, init);
      if (response.ok) {
        return response;
      }
      if (response.status === 401 && attempt === 0 && this.#auth.invalidate(token)) {
        await response.body?.cancel();
        continue;
      }
      throw await WardenError.fromResponse(response);
    }
  }

  /**
   * Opens a GET with the bearer token and answers whatever Warden answered, with the token it was sent with, for
   * callers that read the status themselves (the event stream).
   */
  async open(
    path: string,
    query: Query,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<{ response: Response; token: string }> {
    const token = await this.#auth.token(signal);
    const response = await this.fetch(this.url(path, query), {
      headers: { ...headers, authorization: `Bearer ${token}` },
      signal,
    });
    return { response, token };
  }

  /** Warden refused `token`; answers whether a new one may be had (see {@link TokenSource.invalidate}). */
  refused(token: string): boolean {
    return this.#auth.invalidate(token);
  }
}
