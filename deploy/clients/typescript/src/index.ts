/**
 * `@warden/client`: the TypeScript client of Warden, identity, authorization and audit for AI agents.
 *
 * - {@link Warden}: decisions (`authorize`, AuthZEN `evaluations`), agents, webhooks and the event `stream`;
 * - {@link WardenError}: every refusal, read from Warden's problem documents and OAuth errors;
 * - {@link verifyWebhook}: a webhook delivery verified per Standard Webhooks.
 *
 * @packageDocumentation
 */
export { Warden, type WardenOptions } from './client.js';
export type { ClientCredentials } from './credentials.js';
export { WardenError, type WardenErrorInit } from './errors.js';
export type { CallOptions } from './http.js';
export { SseParser, type SseItem, type StreamOptions } from './stream.js';
export type * from './types.js';
export { type WebhookHeaders, WebhookVerificationError, verifyWebhook } from './webhooks.js';
/** The types generated from Warden's OpenAPI document, for the routes this client has no method for. */
export type { components, operations, paths } from './generated/api.js';
