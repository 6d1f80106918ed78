/**
 * Names for the wire shapes the client sends and receives. Every one is taken from the types that
 * `openapi-typescript` generates from Warden's OpenAPI document (`npm run generate`), so a change of the contract
 * changes them, and code that no longer fits fails to compile.
 *
 * @packageDocumentation
 */
import type { components, operations } from './generated/api.js';

type Schemas = components['schemas'];

/** An agent as Warden answers it (`GET /agents/{id}`). */
export type Agent = Schemas['Agent'];
/** `POST /agents`: the agent to register. */
export type AgentCreate = Schemas['AgentCreate'];
/** An agent with its token, shown once: the answer to `POST /agents`. */
export type IssuedAgent = Schemas['IssuedAgent'];
/** `active`, `suspended`, `revoked` or `expired`. */
export type AgentStatus = Schemas['AgentStatus'];
/** `autonomous`, `delegated` or `service`. */
export type AgentType = Schemas['AgentType'];
/** A grant of actions on resources, with its optional constraints. */
export type Permission = Schemas['Permission'];
/** The filters of `GET /agents`. */
export type AgentFilter = NonNullable<operations['listAgents']['parameters']['query']>;
/** A service agent bound to an OAuth client (`POST /agents/{id}/oauth-client`). */
export type AgentOAuthClient = Schemas['AgentOAuthClient'];

/** `POST /authorize`: may this agent perform this action on this resource now? */
export type AuthorizeRequest = Schemas['AuthorizeRequest'];
/** The decision: `allowed`, and on a denial its `reason`; always the `auditId` of the audit entry written. */
export type AuthorizationDecision = Schemas['AuthorizationDecision'];
/** Why a call was denied (`NO_MATCHING_PERMISSION`, `RATE_LIMITED`, …). */
export type DenialReason = NonNullable<AuthorizationDecision['reason']>;

/** One AuthZEN access evaluation (`POST /access/v1/evaluation`). */
export type AuthzenEvaluation = Schemas['AuthzenEvaluation'];
/**
 * An AuthZEN batch (`POST /access/v1/evaluations`): top-level `subject`, `action`, `resource` and `context` are
 * defaults for each item of `evaluations`.
 */
export type AuthzenBatch = Schemas['AuthzenEvaluations'] & {
  evaluations: NonNullable<Schemas['AuthzenEvaluations']['evaluations']>;
};
/** One AuthZEN decision, with Warden's reason, audit id, approval id or error in its `context`. */
export type AuthzenDecision = Schemas['AuthzenDecision'];
/** The answer to a batch: one decision per evaluation answered, in order. */
export type AuthzenDecisions = Schemas['AuthzenDecisions'];

/** `POST /webhooks`: the endpoint to subscribe. */
export type WebhookCreate = Schemas['WebhookCreate'];
/** A webhook endpoint with its signing secret, shown once. */
export type IssuedWebhook = Schemas['IssuedWebhook'];

/** An RFC 9457 problem with Warden's `code` (docs/errors.md). */
export type Problem = Schemas['Problem'];
/** One field at fault in a `validation_invalid` problem. */
export type FieldError = Schemas['FieldError'];
/** An OAuth error body (RFC 6749 section 5.2). */
export type OAuthError = Schemas['OAuthError'];
/** The body of a 429 (`RATE_LIMIT_EXCEEDED`), which is not a problem document. */
export type RateLimitError = Schemas['RateLimitError'];
/** RFC 8414 authorization server metadata. */
export type AuthorizationServerMetadata = Schemas['AuthorizationServerMetadata'];
/** An OAuth token response. */
export type TokenResponse = Schemas['TokenResponse'];
/** An audit entry, as `GET /audit` and the `audit` stream event carry it. */
export type AuditEntry = Schemas['AuditEntry'];

/** A stream event type (`agent.created`, `audit`, …). New types may appear in minor releases. */
export type EventType = Schemas['EventType'];

/**
 * One event of Warden's stream, as `GET /events/stream` sends it in `data:` and a webhook delivery as its body
 * (docs/events.md). `id` is its position (`"R"` or `"R.i"`); `data` depends on `type`.
 *
 * The OpenAPI document describes the event types (`EventType`) but not this envelope, so the envelope is spelled
 * here, from docs/events.md.
 */
export interface WardenEvent {
  /** The event's position in the stream: `"R"`, or `"R.i"` for an `audit` event inside a batch. */
  id: string;
  type: EventType;
  /** ISO 8601, UTC with milliseconds. */
  timestamp: Schemas['Timestamp'];
  /** The event's body; its shape depends on `type` (docs/events.md). */
  data: Record<string, unknown>;
  /** The agent the event is about, when there is one. */
  agentId?: string;
  /** The user the event belongs to (an agent's owner), when there is one. */
  userId?: string;
}

/**
 * Sent by the stream (without an id) when the cursor asked for is older than what Warden still keeps, or when its
 * store lags: the events after `after` up to and including `missedThrough` cannot be replayed.
 */
export interface ReplayIncomplete {
  type: 'replay.incomplete';
  /** `retention` or `store-lagging`. */
  reason: string;
  /** The cursor the replay started from. */
  after: string;
  /** The id of the last event that could not be replayed. */
  missedThrough: string;
}

/** What the stream yields: an event, or the notice that a replay could not be complete. */
export type StreamEvent = WardenEvent | ReplayIncomplete;
