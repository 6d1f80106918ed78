/**
 * Warden's server-sent event stream (`GET /events/stream`, docs/events.md) as an async iterator that survives
 * dropped connections: it reconnects with the `Last-Event-ID` of the last event it yielded, so that no event is
 * lost or repeated.
 *
 * @packageDocumentation
 */
import { WardenError, parseRetryAfter } from './errors.js';
import type { Query, Transport } from './http.js';
import type { EventType, ReplayIncomplete, StreamEvent, WardenEvent } from './types.js';

/** How to follow the stream. */
export interface StreamOptions {
  /** Only these event types (all the caller may see when absent). An unknown type is a 400 `validation_invalid`. */
  types?: readonly EventType[];
  /**
   * Start after this event id (exclusive): every later event, once, in order. `"-1"` replays every event Warden
   * still keeps. Without it (and without `since`) the stream starts with the events from now on.
   */
  lastEventId?: string;
  /** Start with the events at or after this time (inclusive); ignored when `lastEventId` is given. */
  since?: string | Date;
  /** Stops the stream: the iteration ends without an error. */
  signal?: AbortSignal;
  /**
   * The first wait before reconnecting, in milliseconds (default 1000); a `retry:` field from Warden replaces it.
   * Each further failed attempt in a row doubles it, up to {@link StreamOptions.maxReconnectDelayMs}.
   */
  reconnectDelayMs?: number;
  /** The longest wait between two attempts, in milliseconds (default 30000). */
  maxReconnectDelayMs?: number;
  /**
   * A connection on which nothing arrived for this long, heartbeats included, is taken as dead and replaced
   * (default 75000: Warden sends a heartbeat every 30 s).
   */
  idleTimeoutMs?: number;
  /** Called each time a connection is open (Warden answered 200), the first one and every reconnection. */
  onOpen?: () => void;
}

/** One block of the event-stream format, as {@link SseParser} reads it. */
export type SseItem =
  | { kind: 'event'; id: string | undefined; event: string; data: string }
  | { kind: 'id'; id: string }
  | { kind: 'retry'; milliseconds: number }
  | { kind: 'comment'; text: string };

/**
 * A parser of the `text/event-stream` format (the WHATWG HTML standard, "Server-sent events"), fed text as it
 * arrives, in chunks cut anywhere.
 */
export class SseParser {
  #buffer = '';
  /** A chunk ended with CR: an LF at the start of the next one belongs to that line end. */
  #pendingCr = false;
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  /** Takes the next chunk of text; answers every item it completed. */
  push(chunk: string): SseItem[] {
    let text = chunk;
    if (this.#pendingCr && text.startsWith('\n')) {
      text = text.slice(1);
    }
    this.#pendingCr = false;
    this.#buffer += text;
    const items: SseItem[] = [];
    let start = 0;
    for (;;) {
      const end = lineEnd(this.#buffer, start);
      if (end === -1) {
        break;
      }
      this.#line(this.#buffer.slice(start, end), items);
      if (this.#buffer[end] === '\r') {
        if (end + 1 === this.#buffer.length) {
          this.#pendingCr = true;
          start = end + 1;
          break;
        }
        start = this.#buffer[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
    this.#buffer = this.#buffer.slice(start);
    return items;
  }

  #line(line: string, items: SseItem[]): void {
    if (line === '') {
      this.#dispatch(items);
      return;
    }
    if (line.startsWith(':')) {
      items.push({ kind: 'comment', text: line.slice(1).trimStart() });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.#id = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) {
          items.push({ kind: 'retry', milliseconds: Number(value) });
        }
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  #dispatch(items: SseItem[]): void {
    const id = this.#id;
    if (this.#data.length > 0) {
      items.push({ kind: 'event', id, event: this.#event || 'message', data: this.#data.join('\n') });
    } else if (id !== undefined) {
      items.push({ kind: 'id', id }); // an id alone still moves the cursor
    }
    this.#data = [];
    this.#event = '';
    this.#id = undefined;
  }
}

/** The index of the next CR or LF at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      return i;
    }
  }
  return -1;
}

/** The connection ended, or could not be opened, for a reason worth trying again after. */
class Dropped {
  constructor(
    readonly reason: unknown,
    /** At least this long before the next attempt (a `Retry-After`). */
    readonly retryAfterMs = 0,
    /** Try again at once (a refused token, renewed). */
    readonly immediately = false,
  ) {}
}

/** A connection on which nothing arrived for too long. */
class Idle extends Error {
  override readonly name = 'Idle';
}

/** The shortest wait between two attempts, whatever `retry:` says. */
const MIN_DELAY_MS = 100;

/**
 * Follows `GET /events/stream` through `transport`. See {@link StreamOptions}; the iteration ends when
 * `options.signal` aborts or the consumer stops (`break`), and throws a {@link WardenError} when Warden refuses the
 * stream (a bad token, an unknown type, a malformed cursor). Network failures, 408, 429 and 5xx are retried, with
 * a backoff that doubles up to `maxReconnectDelayMs`, for as long as the iteration goes on.
 */
export async function* followStream(
  transport: Transport,
  options: StreamOptions = {},
): AsyncGenerator<StreamEvent, void, undefined> {
  const { signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? 75_000;
  const maxDelayMs = options.maxReconnectDelayMs ?? 30_000;
  let reconnectDelayMs = options.reconnectDelayMs ?? 1000;
  // The cursor: the id of the last event yielded. Only it (or, before the first event, `since`) says where a
  // reconnection resumes, so that an event is neither skipped nor yielded twice.
  let cursor = options.lastEventId;
  let since = cursor === undefined ? toTimestamp(options.since) : undefined;
  let failures = 0; // attempts in a row that yielded nothing
  let refusedTokens = 0; // in-band token refusals in a row

  while (!aborted(signal)) {
    // One controller per connection, aborted by the caller's signal too (by hand: a listener removed afterwards,
    // where AbortSignal.any would tie every connection's signal to the caller's for as long as it lives).
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let openedAt: number | undefined;
    let dropped: Dropped;
    try {
      const query: Query = { types: options.types?.length ? options.types.join(',') : undefined };
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (cursor !== undefined) {
        headers['last-event-id'] = cursor;
      } else if (since !== undefined) {
        query['since'] = since;
      }
      let opened: { response: Response; token: string };
      try {
        opened = await transport.open('/events/stream', query, headers, connection.signal);
      } catch (error) {
        throw asDropped(error);
      }
      const { response, token } = opened;
      if (!response.ok) {
        const refusal = await WardenError.fromResponse(response);
        throw isRetriable(response.status) ? new Dropped(refusal, (refusal.retryAfter ?? 0) * 1000) : refusal;
      }
      if (response.body === null) {
        throw new Dropped(new Error('the stream answered without a body'));
      }
      if (cursor === undefined && since === undefined) {
        // Should this connection drop before its first event, the next one resumes from when it opened (the
        // server's clock, to the second: at worst a second's earlier events too, never a gap).
        since = toTimestamp(response.headers.get('date') ?? undefined);
      }
      openedAt = Date.now();
      options.onOpen?.();

      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      for (;;) {
        const chunk = await readWithin(reader, idleTimeoutMs, connection);
        if (chunk === undefined) {
          throw new Dropped(new Error('the server closed the stream'));
        }
        for (const item of parser.push(decoder.decode(chunk, { stream: true }))) {
          if (item.kind === 'retry') {
            reconnectDelayMs = item.milliseconds;
          } else if (item.kind === 'id') {
            cursor = item.id;
            since = undefined;
          } else if (item.kind === 'event') {
            if (item.event === 'error' && item.id === undefined) {
              // Warden's in-band refusal of the token; a renewable token is asked for once more.
              const refusal = streamRefusal(item.data, response);
              if (refusedTokens++ === 0 && transport.refused(token)) {
                throw new Dropped(refusal, 0, true);
              }
              throw refusal;
            }
            const event = parseEvent(item);
            refusedTokens = 0;
            failures = 0;
            if (item.id !== undefined) {
              cursor = item.id;
              since = undefined;
            }
            yield event;
          }
        }
      }
    } catch (error) {
      if (aborted(signal)) {
        return; // the caller stopped the stream
      }
      if (!(error instanceof Dropped)) {
        throw error;
      }
      dropped = error;
    } finally {
      signal?.removeEventListener('abort', stop);
      connection.abort();
    }
    if (dropped.immediately) {
      continue;
    }
    if (openedAt !== undefined && Date.now() - openedAt > maxDelayMs) {
      failures = 0; // a connection that lasted is no failure in a row
    }
    const base = Math.max(MIN_DELAY_MS, reconnectDelayMs) * 2 ** Math.min(failures, 16);
    const jittered = Math.min(maxDelayMs, base * (1 + Math.random() * 0.2));
    failures++;
    if (!(await sleep(Math.max(dropped.retryAfterMs, jittered), signal))) {
      return;
    }
  }
}

/** 408, 429 and 5xx: worth trying again later. */
function isRetriable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * A failure to open the stream, as a {@link Dropped} when trying again may help: a network failure (fetch's
 * `TypeError`), or a retriable refusal from the token endpoint. Anything else is returned as it is.
 */
function asDropped(error: unknown): unknown {
  if (error instanceof WardenError) {
    return isRetriable(error.status) ? new Dropped(error, (error.retryAfter ?? 0) * 1000) : error;
  }
  if (error instanceof TypeError || (error instanceof Error && error.name === 'AbortError')) {
    return new Dropped(error);
  }
  return error;
}

/** The next chunk, `undefined` at the end of the body; aborts `connection` when nothing comes within `timeoutMs`. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  timeoutMs: number,
  connection: AbortController,
): Promise<Uint8Array | undefined> {
  const timer = setTimeout(() => connection.abort(new Idle(`nothing arrived for ${timeoutMs} ms`)), timeoutMs);
  try {
    const { done, value } = await reader.read();
    return done ? undefined : value;
  } catch (error) {
    // The connection broke (reset, `terminated`) or was found idle; the caller's own abort is told apart there.
    throw new Dropped(connection.signal.reason instanceof Idle ? connection.signal.reason : error);
  } finally {
    clearTimeout(timer);
  }
}

function parseEvent(item: { id: string | undefined; event: string; data: string }): StreamEvent {
  let data: unknown;
  try {
    data = JSON.parse(item.data);
  } catch {
    throw new WardenError({ status: 200, code: 'malformed_event', detail: `event ${item.id ?? '(no id)'} is not JSON` });
  }
  if (typeof data !== 'object' || data === null) {
    throw new WardenError({ status: 200, code: 'malformed_event', detail: `event ${item.id ?? '(no id)'} is not an object` });
  }
  if (item.event === 'replay.incomplete' && item.id === undefined) {
    return { ...(data as Omit<ReplayIncomplete, 'type'>), type: 'replay.incomplete' };
  }
  return data as WardenEvent;
}

function streamRefusal(data: string, response: Response): WardenError {
  let body: unknown = data;
  try {
    body = JSON.parse(data);
  } catch {
    // the text itself
  }
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  return new WardenError({
    status: 401,
    code: typeof fields['code'] === 'string' ? fields['code'] : 'UNAUTHORIZED',
    detail: typeof fields['message'] === 'string' ? fields['message'] : data,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    body,
  });
}

function toTimestamp(value: string | Date | undefined): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  const parsed = Date.parse(value);
  // An HTTP date (the Date header) becomes ISO 8601; an ISO timestamp is sent as given.
  return /^\d{4}-/.test(value) || Number.isNaN(parsed) ? value : new Date(parsed).toISOString();
}

/** Whether the caller's signal aborted (a function, so that the compiler does not take it as settled). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Waits `ms`; answers false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
