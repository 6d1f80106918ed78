/**
 * Where the bearer token of each request comes from: a static token, or an access token obtained with the OAuth
 * client-credentials grant by a service agent bound to an OAuth client (docs/agents-oauth.md).
 *
 * @packageDocumentation
 */
import { WardenError } from './errors.js';
import type { AuthorizationServerMetadata, TokenResponse } from './types.js';

/** Gives the bearer token for a request, and hears when Warden refused it. */
export interface TokenSource {
  /** The token to send now. */
  token(signal?: AbortSignal): Promise<string>;
  /**
   * Warden answered 401 to `token`. Returns whether asking {@link TokenSource.token} again may give another one
   * (so that the request is worth sending once more).
   */
  invalidate(token: string): boolean;
}

/**
 * A service agent's client credentials: the agent bound as an OAuth client (`POST /agents/{id}/oauth-client`) is a
 * confidential client whose id is the agent id and whose secret is the agent's own token.
 */
export interface ClientCredentials {
  /** The agent id (`agt_…`). */
  clientId: string;
  /** The agent's token (`wdn_agt_…`). */
  clientSecret: string;
  /** The scopes to ask for (space-separated or a list); without it, every scope of the resource the agent holds. */
  scope?: string | readonly string[];
  /** The resource (RFC 8707) the token is for; without it, Warden's REST API. */
  resource?: string;
  /**
   * Renew the access token this many seconds before it expires (default 30). At most half of the token's
   * lifetime is used, so that a short-lived token is still used for a while.
   */
  renewBeforeSeconds?: number;
}

/** A token that never changes: an agent's token, a user's API token, a session or the administrator's token. */
export class StaticTokenSource implements TokenSource {
  readonly #token: string;

  constructor(token: string) {
    if (!token) {
      throw new TypeError('the token is empty');
    }
    this.#token = token;
  }

  token(): Promise<string> {
    return Promise.resolve(this.#token);
  }

  invalidate(): boolean {
    return false;
  }
}

interface CachedToken {
  value: string;
  /** When to stop using it and ask for a new one (epoch milliseconds). */
  renewAt: number;
}

/**
 * Access tokens from the client-credentials grant, at the token endpoint named by
 * `/.well-known/oauth-authorization-server`. The token is cached and renewed shortly before `expires_in` ends;
 * callers that need a token while a renewal is under way share that renewal.
 */
export class ClientCredentialsTokenSource implements TokenSource {
  readonly #issuer: URL;
  readonly #fetch: typeof fetch;
  readonly #credentials: ClientCredentials;
  readonly #renewBeforeMs: number;
  #tokenEndpoint: Promise<string> | undefined;
  #cached: CachedToken | undefined;
  #renewal: Promise<string> | undefined;

  /**
   * @param issuer - Warden's base URL, which is its OAuth issuer
   * @param fetchImpl - the fetch to use
   * @param credentials - the agent's client id and secret
   */
  constructor(issuer: string | URL, fetchImpl: typeof fetch, credentials: ClientCredentials) {
    if (!credentials.clientId || !credentials.clientSecret) {
      throw new TypeError('client credentials need a clientId and a clientSecret');
    }
    const renewBefore = credentials.renewBeforeSeconds ?? 30;
    if (!(renewBefore >= 0)) {
      throw new RangeError('renewBeforeSeconds must be 0 or more');
    }
    this.#issuer = new URL(issuer);
    this.#fetch = fetchImpl;
    this.#credentials = credentials;
    this.#renewBeforeMs = renewBefore * 1000;
  }

  async token(signal?: AbortSignal): Promise<string> {
    const cached = this.#cached;
    if (cached !== undefined && Date.now() < cached.renewAt) {
      return cached.value;
    }
    // One renewal at a time; whoever comes while it runs waits for the same one.
    this.#renewal ??= this.#requestToken().finally(() => {
      this.#renewal = undefined;
    });
    const renewal = this.#renewal;
    if (signal === undefined) {
      return renewal;
    }
    return abortable(renewal, signal);
  }

  invalidate(token: string): boolean {
    if (this.#cached?.value === token) {
      this.#cached = undefined;
    }
    return true;
  }

  async #requestToken(): Promise<string> {
    const endpoint = await this.#discoverTokenEndpoint();
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const { scope, resource, clientId, clientSecret } = this.#credentials;
    if (scope !== undefined) {
      form.set('scope', typeof scope === 'string' ? scope : scope.join(' '));
    }
    if (resource !== undefined) {
      form.set('resource', resource);
    }
    const askedAt = Date.now();
    const response = await this.#fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: basicAuthorization(clientId, clientSecret),
        'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
        accept: 'application/json',
      },
      body: form.toString(),
    });
    if (!response.ok) {
      throw await WardenError.fromResponse(response);
    }
    const answer = (await response.json()) as TokenResponse;
    if (typeof answer.access_token !== 'string' || typeof answer.expires_in !== 'number') {
      throw new WardenError({
        status: response.status,
        code: 'invalid_token_response',
        detail: 'the token endpoint answered without access_token or expires_in',
        requestId: response.headers.get('x-request-id') ?? undefined,
        body: answer,
      });
    }
    // Measured from when the token was asked for, so the renewal never comes late.
    const lifetimeMs = answer.expires_in * 1000;
    const renewAt = askedAt + lifetimeMs - Math.min(this.#renewBeforeMs, lifetimeMs / 2);
    this.#cached = { value: answer.access_token, renewAt };
    return answer.access_token;
  }

  #discoverTokenEndpoint(): Promise<string> {
    this.#tokenEndpoint ??= this.#readMetadata().catch((error: unknown) => {
      this.#tokenEndpoint = undefined; // ask again next time
      throw error;
    });
    return this.#tokenEndpoint;
  }

  async #readMetadata(): Promise<string> {
    const response = await this.#fetch(wellKnown(this.#issuer, 'oauth-authorization-server'), {
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      throw await WardenError.fromResponse(response);
    }
    const metadata = (await response.json()) as AuthorizationServerMetadata;
    if (typeof metadata.token_endpoint !== 'string') {
      throw new WardenError({
        status: response.status,
        code: 'invalid_metadata',
        detail: 'the authorization server metadata names no token_endpoint',
        body: metadata,
      });
    }
    return metadata.token_endpoint;
  }
}

/** RFC 8414 section 3.1: the well-known segment goes between the host and the issuer's path. */
function wellKnown(issuer: URL, name: string): URL {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  return new URL(`/.well-known/${name}${path}`, issuer.origin);
}

/** RFC 6749 section 2.3.1: the client id and secret are form-urlencoded before Base64. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

/** `promise`, or a rejection with the signal's reason once it aborts (the shared work itself goes on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
