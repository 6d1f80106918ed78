/**
 * Verifying Warden's webhook deliveries, which are signed per Standard Webhooks (docs/webhooks.md), with the
 * `standardwebhooks` library.
 *
 * @packageDocumentation
 */
import { Webhook } from 'standardwebhooks';
import type { WardenEvent } from './types.js';

/**
 * A delivery's headers: a fetch `Headers`, or a record such as Node's `IncomingHttpHeaders` (names in any case).
 */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** A delivery that must not be trusted: a bad or missing signature, a stale timestamp, or a body that is no event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/**
 * Verifies a webhook delivery and answers the event it carries; throws {@link WebhookVerificationError} when it
 * must not be trusted.
 *
 * Checks, as Standard Webhooks says: the `webhook-signature` (HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`
 * keyed with the secret) matches one of its signatures, and `webhook-timestamp` is within 5 minutes of this clock.
 * Deliveries are at least once: deduplicate by `webhook-id` (the event's `id`).
 *
 * @param secret - the endpoint's signing secret (`whsec_…`), from the answer to `POST /webhooks`
 * @param headers - the request's headers
 * @param body - the request's body exactly as it arrived: the bytes, or their UTF-8 text (not re-serialized JSON)
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array): WardenEvent {
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (error) {
    throw new WebhookVerificationError('the signing secret is not a whsec_ secret', { cause: error });
  }
  let text: string;
  try {
    text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch (error) {
    throw new WebhookVerificationError('the body is not UTF-8', { cause: error });
  }
  let payload: unknown;
  try {
    payload = webhook.verify(text, headerRecord(headers));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new WebhookVerificationError(`the delivery does not verify: ${reason}`, { cause: error });
  }
  if (!isEvent(payload)) {
    throw new WebhookVerificationError('the signed body is not a Warden event');
  }
  return payload;
}

/** The three headers Standard Webhooks reads, by their lower-case names. */
function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  const record: Record<string, string> = {};
  if (isHeaders(headers)) {
    for (const name of names) {
      const value = headers.get(name);
      if (value !== null) {
        record[name] = value;
      }
    }
    return record;
  }
  for (const [key, value] of Object.entries(headers)) {
    const name = key.toLowerCase();
    if (value !== undefined && names.includes(name)) {
      // Several signatures may come as several values: Standard Webhooks separates them with spaces.
      record[name] = typeof value === 'string' ? value : value.join(' ');
    }
  }
  return record;
}

function isHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function';
}

function isEvent(payload: unknown): payload is WardenEvent {
  if (typeof payload !== 'object' || payload === null) {
    return false;
  }
  const event = payload as Record<string, unknown>;
  return typeof event['id'] === 'string' && typeof event['type'] === 'string' && typeof event['data'] === 'object';
}
