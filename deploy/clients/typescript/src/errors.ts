/**
 * The one error type for Warden's refusals: every answer outside 2xx becomes a {@link WardenError}, whichever of
 * Warden's error bodies it carried (docs/errors.md).
 *
 * @packageDocumentation
 */
import type { FieldError, OAuthError, Problem, RateLimitError } from './types.js';

/** What a {@link WardenError} is made of. */
export interface WardenErrorInit {
  status: number;
  code: string;
  detail?: string | undefined;
  errors?: FieldError[] | undefined;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  body?: unknown;
}

/**
 * Warden refused a request: an HTTP answer outside 2xx, or the event stream's in-band `error` event.
 *
 * The body is read in each of the forms Warden answers:
 * - `application/problem+json` (RFC 9457, almost every route): `code`, `detail`, `errors`, `requestId`;
 * - an OAuth error (`{error, error_description}`, the token endpoint): `code` is `error`, `detail` its description;
 * - the 429 body (`{"error": {"code": "RATE_LIMIT_EXCEEDED", "message", "details"}}`);
 * - anything else (a proxy's page, `Too many connections`): `code` is `http_<status>`, `detail` the text.
 *
 * Codes grow in additive releases: compare with the ones you handle, and treat the rest alike.
 */
export class WardenError extends Error {
  override readonly name = 'WardenError';
  /** The HTTP status (401 for the stream's in-band `error` event). */
  readonly status: number;
  /** Warden's stable code (`agent_not_found`, `validation_invalid`, `invalid_client`, `RATE_LIMIT_EXCEEDED`, …). */
  readonly code: string;
  /** What went wrong, for a person. */
  readonly detail: string | undefined;
  /** Every field at fault, for `validation_invalid`; empty otherwise. */
  readonly errors: readonly FieldError[];
  /** The request's id (`X-Request-Id`): quote it when reporting a failure. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again (`Retry-After`), on a 429 or a 503. */
  readonly retryAfter: number | undefined;
  /** The parsed body (the problem document, the OAuth error, …), or the text when it was not JSON. */
  readonly body: unknown;

  constructor(init: WardenErrorInit) {
    super(`${init.status} ${init.code}${init.detail ? `: ${init.detail}` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** The problem document, when Warden answered one. */
  get problem(): Problem | undefined {
    return isProblem(this.body) ? this.body : undefined;
  }

  /**
   * Reads a refused answer into a {@link WardenError}. Consumes the body.
   *
   * @param response - an answer whose status is outside 2xx
   */
  static async fromResponse(response: Response): Promise<WardenError> {
    const text = await response.text().catch(() => '');
    const headerRequestId = response.headers.get('x-request-id') ?? undefined;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    const body = parseJson(text);

    if (isProblem(body)) {
      return new WardenError({
        status: response.status,
        code: body.code,
        detail: body.detail ?? body.title,
        errors: body.errors,
        requestId: body.requestId ?? headerRequestId,
        retryAfter,
        body,
      });
    }
    if (isRateLimitError(body)) {
      return new WardenError({
        status: response.status,
        code: body.error.code,
        detail: body.error.message,
        requestId: headerRequestId,
        retryAfter: retryAfter ?? body.error.details.retryAfter,
        body,
      });
    }
    if (isOAuthError(body)) {
      return new WardenError({
        status: response.status,
        code: body.error,
        detail: body.error_description,
        requestId: headerRequestId,
        retryAfter,
        body,
      });
    }
    const detail = text.trim().slice(0, 500) || response.statusText || undefined;
    return new WardenError({
      status: response.status,
      code: `http_${response.status}`,
      detail,
      requestId: headerRequestId,
      retryAfter,
      body: body ?? text,
    });
  }
}

function parseJson(text: string): unknown {
  if (!text) {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProblem(body: unknown): body is Problem {
  return isObject(body) && typeof body['code'] === 'string' && typeof body['status'] === 'number';
}

function isOAuthError(body: unknown): body is OAuthError {
  return isObject(body) && typeof body['error'] === 'string';
}

function isRateLimitError(body: unknown): body is RateLimitError {
  if (!isObject(body) || !isObject(body['error'])) {
    return false;
  }
  const error = body['error'];
  return typeof error['code'] === 'string' && isObject(error['details']);
}

/**
 * `Retry-After` in seconds: delta-seconds, or an HTTP date (seconds from now, at least 0); `undefined` when absent
 * or unreadable.
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') {
    return undefined;
  }
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed);
  }
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
