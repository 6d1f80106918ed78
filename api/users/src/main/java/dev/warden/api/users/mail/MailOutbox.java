package dev.warden.api.users.mail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.errors.UnavailableException;
import dev.warden.api.observe.HealthCheck;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Mail that is never lost: a message is stored ({@code mail_outbox}, its content sealed with the key-encryption key)
 * in the transaction that made its link or code, and a worker delivers it, retrying with backoff while the server is
 * down. A request that would send mail while the last delivery failed answers 503 with {@code Retry-After}, the same
 * for every request (whether or not an account matched), so an outage is visible and retriable and tells nothing. A
 * message the server refuses {@link #MAX_ATTEMPTS} times is given up and kept with its error; its content is wiped
 * once sent or given up. Thread-safe.
 *
 * <p>The worker sleeps while nothing is due: whatever queues a message wakes it once its transaction has committed
 * ({@link #wake()}), and otherwise it looks again when the next retry is due, or after {@link #IDLE_LOOK} at most
 * (a message another instance queued and could not send before it stopped).
 */
public final class MailOutbox implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MailOutbox.class.getName());
    /** Attempts before a message is given up. */
    static final int MAX_ATTEMPTS = 10;
    /** The longest wait between two attempts. */
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    /** The longest the worker sleeps without being woken. */
    static final Duration IDLE_LOOK = Duration.ofSeconds(30);
    /** Messages read per round of a look. */
    private static final int ROUND = 20;

    private final MailConfig config;
    private final Database db;
    private final SecretCipher cipher;
    private final InstantSource clock;
    private final SmtpTransport transport;
    private final Thread worker;
    private final Semaphore wakeups = new Semaphore(0);
    private volatile boolean running = true;
    private final AtomicBoolean lastDeliveryFailed = new AtomicBoolean();
    private volatile Intents intents;

    /**
     * Turns a stored intent (mail some kind of message to an address, if an account has it) into the message, in
     * the worker: a lookup and a token made there, not in the request, so that the request takes the same time
     * whether or not an account matched.
     */
    @FunctionalInterface
    public interface Intents {
        /** The message for {@code kind} to {@code address}; empty when no account has that verified address. */
        Optional<MailMessage> resolve(String kind, String address, Instant now);
    }

    private MailOutbox(MailConfig config, Database db, SecretCipher cipher, InstantSource clock) {
        this.config = config;
        this.db = db;
        this.cipher = cipher;
        this.clock = clock;
        this.transport = config.enabled() ? new SmtpTransport(config) : null;
        this.worker = Thread.ofPlatform().name("warden-mail").daemon().unstarted(this::run);
    }

    /** An outbox whose worker has not started: {@link #start(Intents)} starts it. */
    public static MailOutbox create(MailConfig config, Database db, SecretCipher cipher, InstantSource clock) {
        return new MailOutbox(config, db, cipher, clock);
    }

    /** Starts the delivery worker (none when no server is configured), resolving intents with {@code intents}. */
    public MailOutbox start(Intents intents) {
        this.intents = intents;
        if (config.enabled()) {
            worker.start();
        }
        return this;
    }

    private void run() {
        while (running) {
            Duration idle = deliverDue();
            try {
                if (wakeups.tryAcquire(idle.toMillis(), TimeUnit.MILLISECONDS)) {
                    wakeups.drainPermits();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** True when a mail server is configured: queued messages are delivered. */
    public boolean enabled() {
        return config.enabled();
    }

    /**
     * Throws 503 unless mail can be sent now: a server is configured and the last delivery did not fail. Call it
     * before any work that depends on the answer's content, so that every request pays the same.
     */
    public void requireAvailable() {
        if (!config.enabled()) {
            throw new UnavailableException("no mail server is configured (warden.mail.host)", Duration.ofMinutes(5));
        }
        if (lastDeliveryFailed.get()) {
            throw new UnavailableException("the mail server is unreachable; try again shortly", Duration.ofSeconds(30));
        }
    }

    /**
     * Queues {@code message} in the caller's transaction; the caller {@link #wake() wakes} the worker once that
     * transaction has committed.
     */
    public void enqueue(Connection conn, MailMessage message) throws SQLException {
        insert(conn, message.to(), body(message));
    }

    /**
     * Queues the intent to mail a {@code kind} message to {@code address} if an account has it (resolved by the
     * worker through {@link Intents}): the same one insert whether or not one does.
     */
    public void enqueueIntent(String kind, String address) {
        db.withConnection(conn -> {
            insert(conn, address, json(Map.of("intent", kind)));
            return null;
        });
        wake();
    }

    private static String body(MailMessage message) {
        return json(Map.of("subject", message.subject(), "text", message.text(), "html", message.html()));
    }

    private static String json(Map<String, String> fields) {
        try {
            return Json.mapper().writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void insert(Connection conn, String recipient, String body) throws SQLException {
        String id = Ids.mint("mail");
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO mail_outbox "
                + "(id, recipient, sealed, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)")) {
            Timestamp now = Timestamp.from(clock.instant());
            ps.setString(1, id);
            ps.setString(2, recipient);
            ps.setString(3, cipher.seal(id, body));
            ps.setTimestamp(4, now);
            ps.setTimestamp(5, now);
            ps.executeUpdate();
        }
    }

    /** Asks the worker to look for due messages now: call it once the transaction that queued one has committed. */
    public void wake() {
        if (config.enabled()) { // without a mail server no worker runs to take the wake-ups
            wakeups.release();
        }
    }

    /** {@code mail}: DOWN while the last delivery failed; UP otherwise (and when mail is not configured). */
    public HealthCheck health() {
        return HealthCheck.of(
                "mail",
                () -> !config.enabled()
                        ? HealthCheck.Result.up("not configured")
                        : lastDeliveryFailed.get()
                                ? HealthCheck.Result.degraded("the last delivery failed; retrying")
                                : HealthCheck.Result.up("delivering"));
    }

    private record Due(String id, String recipient, String sealed, int attempts, Instant nextAttemptAt) {}

    /**
     * Delivers what is due, one message at a time, and says how long the worker may sleep: until the next message
     * waiting for a retry is due, {@link #IDLE_LOOK} at most. Never throws (a worker survives every record); after a
     * failed look it sleeps a second.
     */
    Duration deliverDue() {
        try {
            // Each message delivered is sent, given up or put off (its claim moves its next attempt out): every
            // round leaves fewer due, and the round that finds none due says how long to sleep.
            while (running) {
                Instant now = clock.instant();
                List<Due> waiting = waiting();
                if (waiting.isEmpty()) {
                    return IDLE_LOOK;
                }
                for (Due due : waiting) {
                    if (due.nextAttemptAt().isAfter(now)) {
                        Duration until = Duration.between(now, due.nextAttemptAt());
                        return until.compareTo(IDLE_LOOK) < 0 ? until : IDLE_LOOK;
                    }
                    deliver(due);
                }
            }
            return Duration.ZERO;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "mail delivery pass failed; retrying", e);
            return Duration.ofSeconds(1);
        }
    }

    /** The next {@link #ROUND} messages neither sent nor given up, the soonest due first. */
    private List<Due> waiting() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("SELECT id, recipient, sealed, attempts, next_attempt_at FROM mail_outbox "
                            + "WHERE sent_at IS NULL AND given_up_at IS NULL ORDER BY next_attempt_at LIMIT "
                            + ROUND)) {
                List<Due> due = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        due.add(new Due(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getInt(4),
                                rs.getTimestamp(5).toInstant()));
                    }
                }
                return due;
            }
        });
    }

    private void deliver(Due due) {
        // Claim it first, so that two instances do not both send it: the claim moves its next attempt out.
        Instant now = clock.instant();
        int attempts = due.attempts() + 1;
        Instant retryAt = now.plus(backoff(attempts));
        boolean claimed = db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("UPDATE mail_outbox SET attempts = ?, next_attempt_at = ? "
                            + "WHERE id = ? AND attempts = ? AND sent_at IS NULL")) {
                ps.setInt(1, attempts);
                ps.setTimestamp(2, Timestamp.from(retryAt));
                ps.setString(3, due.id());
                ps.setInt(4, due.attempts());
                return ps.executeUpdate() == 1;
            }
        });
        if (!claimed) {
            return;
        }
        try {
            JsonNode body = Json.mapper().readTree(cipher.open(due.id(), due.sealed()));
            if (body.has("intent")) {
                Optional<MailMessage> message =
                        intents.resolve(body.get("intent").asText(), due.recipient(), now);
                if (message.isEmpty()) {
                    // No account has that verified address: nothing is sent, and nothing says so to the asker.
                    finish(due.id(), "sent_at", "no account has this verified address; nothing sent");
                    return;
                }
                // From now on the row holds the message itself (sealed), so a retry sends the same link.
                body = Json.mapper().readTree(body(message.get()));
                String resolved = cipher.seal(due.id(), body(message.get()));
                db.withConnection(conn -> {
                    try (PreparedStatement ps =
                            conn.prepareStatement("UPDATE mail_outbox SET sealed = ? WHERE id = ?")) {
                        ps.setString(1, resolved);
                        ps.setString(2, due.id());
                        return ps.executeUpdate();
                    }
                });
            }
            transport.send(new MailMessage(
                    due.recipient(),
                    body.get("subject").asText(),
                    body.get("text").asText(),
                    body.get("html").asText()));
            finish(due.id(), "sent_at", null);
            lastDeliveryFailed.set(false);
        } catch (Exception e) {
            String error = CleanText.scrub(String.valueOf(e.getMessage()));
            lastDeliveryFailed.set(true);
            if (attempts >= MAX_ATTEMPTS) {
                finish(due.id(), "given_up_at", error);
                LOG.warning("mail " + due.id() + " given up after " + attempts + " attempts: " + error);
            } else {
                db.withConnection(conn -> {
                    try (PreparedStatement ps =
                            conn.prepareStatement("UPDATE mail_outbox SET last_error = ? WHERE id = ?")) {
                        ps.setString(1, error.length() > 2000 ? error.substring(0, 2000) : error);
                        ps.setString(2, due.id());
                        return ps.executeUpdate();
                    }
                });
                LOG.warning("mail " + due.id() + " not delivered (attempt " + attempts + "): " + error);
            }
        }
    }

    /** Marks the message sent or given up, and wipes its content. */
    private void finish(String id, String column, String error) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE mail_outbox SET " + column + " = ?, sealed = '', last_error = ? WHERE id = ?")) {
                ps.setTimestamp(1, Timestamp.from(clock.instant()));
                ps.setString(2, error);
                ps.setString(3, id);
                return ps.executeUpdate();
            }
        });
    }

    static Duration backoff(int attempts) {
        long seconds = 1L << Math.min(attempts, 16);
        Duration wait = Duration.ofSeconds(seconds);
        return wait.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : wait;
    }

    @Override
    public void close() {
        running = false;
        worker.interrupt();
        try {
            worker.join(Duration.ofSeconds(2).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
