/**
 * The {@link Warden} client: decisions, AuthZEN evaluations, agents, webhooks and the event stream of one Warden.
 *
 * @packageDocumentation
 */
import {
  type ClientCredentials,
  ClientCredentialsTokenSource,
  StaticTokenSource,
  type TokenSource,
} from './credentials.js';
import { WardenError } from './errors.js';
import { type CallOptions, Transport } from './http.js';
import { type StreamOptions, followStream } from './stream.js';
import type {
  Agent,
  AgentCreate,
  AgentFilter,
  AgentOAuthClient,
  AuthorizationDecision,
  AuthorizeRequest,
  AuthzenBatch,
  AuthzenDecision,
  AuthzenDecisions,
  AuthzenEvaluation,
  IssuedAgent,
  IssuedWebhook,
  StreamEvent,
  WebhookCreate,
} from './types.js';

interface CommonOptions {
  /** Warden's base URL, which is also its OAuth issuer (`https://warden.example.com`). */
  baseUrl: string | URL;
  /** The fetch to send requests with (the global one by default). */
  fetch?: typeof fetch;
}

/** How to reach Warden, and as whom: a bearer `token`, or a service agent's client `credentials`. */
export type WardenOptions = CommonOptions &
  (
    | {
        /**
         * A bearer token: an agent's token (`wdn_agt_…`), a user's API token (`wdn_api_…`) or session
         * (`wdn_ses_…`), the administrator's token, or an OAuth access token.
         */
        token: string;
        credentials?: never;
      }
    | {
        /** A service agent bound as an OAuth client: access tokens come from the client-credentials grant. */
        credentials: ClientCredentials;
        token?: never;
      }
  );

/**
 * A client of one Warden.
 *
 * Every answer outside 2xx rejects with a {@link WardenError}; a network failure rejects with fetch's own error.
 *
 * @example
 * ```ts
 * const warden = new Warden({ baseUrl: 'http://localhost:8080', token: process.env.WARDEN_TOKEN! });
 * const decision = await warden.authorize({ agentId, action: 'read', resource: 'mcp:github:issues:42' });
 * if (!decision.allowed) console.log(decision.reason, decision.auditId);
 * ```
 */
export class Warden {
  /** Warden's base URL. */
  readonly baseUrl: URL;
  readonly #http: Transport;

  constructor(options: WardenOptions) {
    this.baseUrl = new URL(options.baseUrl);
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    let auth: TokenSource;
    if (options.token !== undefined) {
      auth = new StaticTokenSource(options.token);
    } else if (options.credentials !== undefined) {
      auth = new ClientCredentialsTokenSource(this.baseUrl, fetchImpl, options.credentials);
    } else {
      throw new TypeError('Warden needs a token or client credentials');
    }
    this.#http = new Transport(this.baseUrl, fetchImpl, auth);
  }

  /**
   * `POST /authorize`: may the agent perform the action on the resource now? A denial is an answer, not an error:
   * `allowed: false` with its `reason`. Every decision has an audit entry, `auditId`, before it is answered.
   */
  authorize(request: AuthorizeRequest, options?: CallOptions): Promise<AuthorizationDecision> {
    return this.#http.json('POST', '/authorize', { ...options, json: request });
  }

  /** `POST /access/v1/evaluation`: one AuthZEN access evaluation (docs/authzen.md). */
  evaluation(request: AuthzenEvaluation, options?: CallOptions): Promise<AuthzenDecision> {
    return this.#http.json('POST', '/access/v1/evaluation', { ...options, json: request });
  }

  /**
   * `POST /access/v1/evaluations`: an AuthZEN batch. Answers one decision per evaluation answered, in order (all
   * of them unless `options.evaluations_semantic` short-circuits). An evaluation Warden cannot decide is
   * `decision: false` with `context.error`; it does not fail the batch.
   */
  async evaluations(request: AuthzenBatch, options?: CallOptions): Promise<AuthzenDecisions> {
    const answer = await this.#http.json<AuthzenDecisions | AuthzenDecision>('POST', '/access/v1/evaluations', {
      ...options,
      json: request,
    });
    if (!('evaluations' in answer) || !Array.isArray(answer.evaluations)) {
      throw new TypeError('the evaluations endpoint answered a single decision to a batch');
    }
    return answer;
  }

  /** `POST /agents`: registers an active agent. The answer carries its `token`, shown this once. */
  createAgent(agent: AgentCreate, options?: CallOptions): Promise<IssuedAgent> {
    return this.#http.json('POST', '/agents', { ...options, json: agent });
  }

  /** `GET /agents/{id}`; 404 `agent_not_found` also for an agent the caller may not see. */
  getAgent(id: string, options?: CallOptions): Promise<Agent> {
    return this.#http.json('GET', `/agents/${encodeURIComponent(id)}`, options);
  }

  /**
   * `GET /agents`: every agent the caller may see (a user their own, an agent itself, the administrator all) that
   * matches the filters. The route answers the whole list at once: it has no pages.
   */
  listAgents(filter: AgentFilter = {}, options?: CallOptions): Promise<Agent[]> {
    return this.#http.json('GET', '/agents', {
      ...options,
      query: { status: filter.status, type: filter.type, tenantId: filter.tenantId },
    });
  }

  /**
   * `DELETE /agents/{id}`: revokes the agent, permanently. Its token stops working at once, and so does every
   * delegation chain it is the source of and every OAuth token that relied on it.
   */
  async revokeAgent(id: string, options?: CallOptions): Promise<void> {
    await this.#http.json('DELETE', `/agents/${encodeURIComponent(id)}`, options);
  }

  /**
   * `POST /agents/{id}/oauth-client`: binds a `service` agent as an OAuth client, whose client id is the agent id
   * and whose secret is the agent's token; then `new Warden({ baseUrl, credentials: { clientId, clientSecret } })`
   * acts as that agent with client-credentials access tokens. Binding again answers the same binding.
   */
  bindOAuthClient(agentId: string, options?: CallOptions): Promise<AgentOAuthClient> {
    return this.#http.json('POST', `/agents/${encodeURIComponent(agentId)}/oauth-client`, options);
  }

  /**
   * `POST /webhooks`: subscribes an endpoint to the caller's events. The answer carries the signing `secret`,
   * shown this once: keep it for `verifyWebhook`.
   */
  createWebhook(webhook: WebhookCreate, options?: CallOptions): Promise<IssuedWebhook> {
    return this.#http.json('POST', '/webhooks', { ...options, json: webhook });
  }

  /** `DELETE /webhooks/{id}`: stops the endpoint's deliveries. */
  async deleteWebhook(id: string, options?: CallOptions): Promise<void> {
    await this.#http.json('DELETE', `/webhooks/${encodeURIComponent(id)}`, options);
  }

  /**
   * `GET /events/stream`: the events the caller may see, as they happen (docs/events.md), as an async iterator.
   *
   * A dropped connection is reopened with the `Last-Event-ID` of the last event yielded (after a wait that
   * doubles up to a bound, and honours `retry:`), so no event is lost or repeated. The iteration ends when
   * `options.signal` aborts or the loop stops; it throws a {@link WardenError} when Warden refuses the stream.
   *
   * @example
   * ```ts
   * for await (const event of warden.stream({ types: ['agent.created', 'audit'], signal })) {
   *   if (event.type === 'replay.incomplete') console.warn('missed', event.after, '…', event.missedThrough);
   *   else console.log(event.id, event.type, event.data);
   * }
   * ```
   */
  stream(options: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    return followStream(this.#http, options);
  }
}
