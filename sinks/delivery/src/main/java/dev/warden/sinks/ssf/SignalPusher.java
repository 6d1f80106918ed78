package dev.warden.sinks.ssf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.RetryAfter;
import dev.warden.sinks.external.DurableSinkWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Push delivery (RFC 8935): each enabled push stream's queued Security Event Tokens are POSTed to its endpoint one
 * at a time, in order, as {@code application/secevent+jwt} with the stream's {@code Authorization} header. A 2xx
 * takes the token off the queue. A 400 (the receiver's {@code err} and {@code description}) or another 4xx but 401,
 * 403, 408 and 429 is a refusal of that token: it is dropped and the reason kept on the stream. Anything else (no
 * answer, 5xx, 408, 429, 401, 403) leaves it queued: the stream waits (its {@code Retry-After}, else exponential
 * backoff with full jitter up to the ceiling) and the tokens after it wait with it, so order holds and nothing is
 * lost while the receiver is away. One instance pushes a stream at a time (a PostgreSQL advisory lock), so several
 * sinks instances never interleave a stream. At least once: a crash between an answer and its removal resends that
 * token, with the same {@code jti}.
 */
public final class SignalPusher implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SignalPusher.class.getName());
    /**
     * The longest the pusher sleeps between two looks at the queues: a token queued by the feeder of this process
     * wakes it at once ({@link #wake()}); one queued elsewhere (a verification, another instance's feeder) waits this.
     */
    private static final Duration IDLE = Duration.ofSeconds(1);
    /** Tokens pushed to one stream before the others get their turn. */
    private static final int ROUND = 50;

    private static final int MAX_ANSWER_BYTES = 4096;

    private final Database db;
    private final SignalStreams streams;
    private final GuardedHttp http;
    private final InstantSource clock;
    private final Duration ceiling;
    private final Map<String, Backoff> waiting = new ConcurrentHashMap<>();
    private final Thread thread;
    private final java.util.concurrent.Semaphore wakeups = new java.util.concurrent.Semaphore(0);
    private volatile boolean running = true;

    private record Backoff(int failures, Instant until) {}

    /** What one push came to. */
    enum Outcome {
        DELIVERED,
        REFUSED,
        RETRY
    }

    public SignalPusher(
            Database db, SignalStreams streams, GuardedHttp http, InstantSource clock, Duration retryCeiling) {
        this.db = db;
        this.streams = streams;
        this.http = http;
        this.clock = clock;
        this.ceiling = retryCeiling;
        this.thread = Thread.ofPlatform().name("warden-ssf-push").daemon().unstarted(this::run);
    }

    /** Asks for a look at the queues now (tokens were queued). */
    public void wake() {
        wakeups.release();
    }

    /** Starts pushing. */
    public SignalPusher start() {
        thread.start();
        return this;
    }

    private void run() {
        while (running) {
            try {
                for (SignalStream stream : streams.pushable()) {
                    if (!running) {
                        return;
                    }
                    Backoff backoff = waiting.get(stream.id());
                    if (backoff == null || !clock.instant().isBefore(backoff.until())) {
                        push(stream);
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "security event push round failed; retrying", e);
            }
            try {
                if (wakeups.tryAcquire(IDLE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    wakeups.drainPermits();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Pushes up to a round of the stream's tokens, unless another instance is pushing it. */
    private void push(SignalStream stream) {
        db.withConnection(conn -> {
            if (!lock(conn, "SELECT pg_try_advisory_lock(hashtext(?))", stream.id())) {
                return null;
            }
            try {
                for (SignalStreams.Pending token :
                        SignalStreams.pending(conn, stream.id(), ROUND).tokens()) {
                    Outcome outcome = send(stream, token);
                    if (outcome == Outcome.RETRY) {
                        break;
                    }
                    SignalStreams.delivered(conn, stream.id(), token.seq());
                }
            } finally {
                lock(conn, "SELECT pg_advisory_unlock(hashtext(?))", stream.id());
            }
            return null;
        });
    }

    private static boolean lock(java.sql.Connection conn, String sql, String id) throws java.sql.SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, "ssf-push:" + id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** One token to the stream's endpoint. */
    Outcome send(SignalStream stream, SignalStreams.Pending token) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/secevent+jwt");
        headers.put("Accept", "application/json");
        stream.authorizationHeader().ifPresent(h -> headers.put("Authorization", h));
        Instant now = clock.instant();
        GuardedHttp.Answer answer;
        try {
            answer = http.send(
                    "POST",
                    stream.endpoint().orElseThrow(),
                    headers,
                    Optional.of(token.token().getBytes(StandardCharsets.US_ASCII)),
                    MAX_ANSWER_BYTES);
        } catch (IOException e) {
            return retry(stream, "no answer: " + e.getMessage(), Optional.empty(), now);
        }
        int status = answer.status();
        if (status >= 200 && status < 300) {
            waiting.remove(stream.id());
            return Outcome.DELIVERED;
        }
        if (status >= 400 && status < 500 && status != 401 && status != 403 && status != 408 && status != 429) {
            String why = "token " + token.jti() + " refused with " + status + refusal(answer.body());
            LOG.warning("security event stream " + stream.id() + ": " + why + "; dropped");
            streams.recordError(stream.id(), why, now);
            return Outcome.REFUSED;
        }
        return retry(stream, "answered " + status, RetryAfter.parse(answer.header("retry-after"), now), now);
    }

    private Outcome retry(SignalStream stream, String why, Optional<Duration> asked, Instant now) {
        Backoff previous = waiting.get(stream.id());
        int failures = previous == null ? 1 : previous.failures() + 1;
        Duration wait = asked.map(
                        d -> d.compareTo(DurableSinkWriter.RETRY_AFTER_MAX) > 0 ? DurableSinkWriter.RETRY_AFTER_MAX : d)
                .orElseGet(() -> DurableSinkWriter.backoff(
                        failures, ceiling, ThreadLocalRandom.current().nextDouble()));
        waiting.put(stream.id(), new Backoff(failures, now.plus(wait)));
        if (failures == 1 || failures % 20 == 0) {
            LOG.warning("security event stream " + stream.id() + ": " + why + "; retrying in " + wait.toMillis()
                    + " ms (" + failures + " failures in a row)");
        }
        streams.recordError(stream.id(), why, now);
        return Outcome.RETRY;
    }

    /** The receiver's RFC 8935 error ({@code err}, {@code description}), when it sent one. */
    private static String refusal(byte[] body) {
        try {
            JsonNode node = Json.mapper().readTree(body);
            if (node != null && node.path("err").isTextual()) {
                return " (" + node.path("err").asText() + ": "
                        + node.path("description").asText("") + ")";
            }
        } catch (IOException | RuntimeException e) {
            // not the RFC's JSON: the status says enough
        }
        return "";
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
