package dev.warden.api.doctor;

import dev.warden.api.ratelimit.StoreKind;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The security doctor's checks. Each is a pure function of what it looks at (no I/O, no clock of its own), so
 * each can be tested alone; each returns its finding, or empty when all is well. The texts name configuration
 * keys and counts, never a secret.
 */
public final class Checks {
    /**
     * OWASP's Argon2id minimums, equal in strength: the least memory in KiB for 1, 2, 3, 4 and 5 or more
     * passes, each with one lane (Password Storage Cheat Sheet, "Argon2id").
     */
    private static final int[] ARGON2_MIN_MEMORY_KIB = {47_104, 19_456, 12_288, 9_216, 7_168};

    private static final String OWASP_ARGON2 =
            "https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id";

    private Checks() {}

    /** {@code anonymous-registration-on}: {@code POST /oauth/register} needs no initial access token. */
    public static Optional<Finding> anonymousRegistration(boolean allowAnonymousRegistration) {
        if (!allowAnonymousRegistration) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.ANONYMOUS_REGISTRATION_ON,
                "warden.oauth.allow-anonymous-registration is true: POST /oauth/register accepts any caller without "
                        + "an initial access token, so anyone who reaches Warden can create OAuth clients with names "
                        + "and redirect URIs of their choosing (limited per IP address).",
                "Set warden.oauth.allow-anonymous-registration to false "
                        + "(WARDEN_OAUTH_ALLOW__ANONYMOUS__REGISTRATION=false) and give the integrators who register "
                        + "clients an initial access token from warden.oauth.registration-tokens."));
    }

    /**
     * {@code mcp-registration-open}: {@code POST /mcp/register} is open to anyone. Info, not warning: it is the
     * SPEC's default and what MCP clients rely on, and a client it registers gets no token without a user's consent.
     */
    public static Optional<Finding> mcpRegistration(boolean mcpRegistrationOpen) {
        if (!mcpRegistrationOpen) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.MCP_REGISTRATION_OPEN,
                "warden.oauth.mcp-registration-open is true (the default): POST /mcp/register creates an OAuth "
                        + "client for any caller (limited per IP address).",
                "Reported as info, not as a warning: MCP clients register themselves (MCP authorization, RFC 7591 "
                        + "dynamic client registration) before anyone signs in, and a client registered this way "
                        + "gets no token until a signed-in user consents. If every MCP client of this deployment is "
                        + "registered ahead of time, set warden.oauth.mcp-registration-open to false "
                        + "(WARDEN_OAUTH_MCP__REGISTRATION__OPEN=false) to gate /mcp/register like /oauth/register."));
    }

    /**
     * {@code forwarded-headers-untrusted}: requests carried {@code X-Forwarded-For} or {@code Forwarded} while no
     * proxy is trusted ({@code ignored} look-ups so far).
     */
    public static Optional<Finding> forwardedHeaders(boolean proxiesTrusted, long ignored) {
        if (proxiesTrusted || ignored == 0) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.FORWARDED_HEADERS_UNTRUSTED,
                ignored + " look-ups of a client address since start found X-Forwarded-For or Forwarded and "
                        + "ignored it, because warden.rate-limit.trusted-proxies is empty. Behind a reverse proxy or "
                        + "load balancer every client then has the proxy's address: they share its rate-limit "
                        + "counters, so one client can lock the others out, and audit entries record the proxy.",
                "If a proxy forwards to Warden, list its addresses in warden.rate-limit.trusted-proxies "
                        + "(WARDEN_RATE__LIMIT_TRUSTED__PROXIES, a CIDR list such as 10.0.0.0/8); forwarding headers "
                        + "are then believed from those addresses only. If nothing forwards to Warden, clients sent "
                        + "the headers themselves and ignoring them is right: nothing to change."));
    }

    /**
     * The bootstrap administrator token: {@code bootstrap-token-off} when it is turned off (said, so that nobody
     * wonders why it fails), else {@code bootstrap-token-weak} when a configured one is weak.
     */
    public static Optional<Finding> bootstrapToken(BootstrapTokenVerdict verdict, boolean enabled) {
        if (!enabled) {
            return Optional.of(new Finding(
                    FindingId.BOOTSTRAP_TOKEN_OFF,
                    "warden.bootstrap.enabled is false: the static bootstrap token is refused; administrators act "
                            + "through administrator sessions (POST /auth/admin-session, with a second factor).",
                    "Nothing to change. To recover when no administrator can sign in, set "
                            + "warden.bootstrap.enabled=true (WARDEN_BOOTSTRAP_ENABLED) with a strong "
                            + "warden.bootstrap.token and restart."));
        }
        if (!verdict.weak()) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.BOOTSTRAP_TOKEN_WEAK,
                "The configured warden.bootstrap.token is " + String.join("; ", verdict.weaknesses())
                        + ". It grants every right on this deployment (the token itself is never shown).",
                "Set warden.bootstrap.token (WARDEN_BOOTSTRAP_TOKEN) on every instance to a random value of at "
                        + "least " + BootstrapTokenVerdict.MIN_LENGTH + " characters, e.g. "
                        + "wdn_adm_$(openssl rand -base64 32 | tr '+/' '-_' | tr -d =), kept in a secret store, and "
                        + "restart; the old token stops working. A single instance may instead leave it unset and "
                        + "use the random token it prints at start."));
    }

    /**
     * {@code bootstrap-token-still-on}: an administrator who is a person exists, and the static bootstrap token still
     * works.
     */
    public static Optional<Finding> bootstrapStillOn(boolean enabled, boolean administratorExists) {
        if (!enabled || !administratorExists) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.BOOTSTRAP_TOKEN_STILL_ON,
                "An administrator user exists, and the static bootstrap token still grants every right to whoever "
                        + "holds it, with no second factor and no name in the audit log.",
                "Set warden.bootstrap.enabled=false (WARDEN_BOOTSTRAP_ENABLED=false) on every instance and restart; "
                        + "administrators then act through administrator sessions."));
    }

    /**
     * {@code issuer-not-https}: the OAuth issuer is not an https URL outside a dev deployment.
     *
     * @param issuer     the issuer in force
     * @param configured whether {@code warden.oauth.issuer} is set (else the issuer was derived from the listener)
     * @param dev        whether this is a dev deployment ({@link DoctorSettings#isDev}), where http is expected
     */
    public static Optional<Finding> issuer(String issuer, boolean configured, boolean dev) {
        if (dev || "https".equals(URI.create(issuer).getScheme())) {
            return Optional.empty();
        }
        String source = configured
                ? "warden.oauth.issuer is " + issuer
                : "warden.oauth.issuer is not set, so the issuer is " + issuer + ", derived from the listener";
        return Optional.of(new Finding(
                FindingId.ISSUER_NOT_HTTPS,
                source + ": authorization codes, tokens and passwords on the login page travel in clear text, and "
                        + "RFC 8414 (section 2) requires an https issuer.",
                "Serve Warden over TLS (usually at a reverse proxy, listed in warden.rate-limit.trusted-proxies) "
                        + "and set warden.oauth.issuer (WARDEN_OAUTH_ISSUER) to the https URL clients reach it at, "
                        + "without a trailing slash, on every instance. Tokens issued before name the old issuer "
                        + "and stop verifying."));
    }

    /** {@code password-hash-weak}: the Argon2id cost is below OWASP's minimum for its number of passes. */
    public static Optional<Finding> passwordHashing(int memoryKib, int iterations, int parallelism) {
        int floor = ARGON2_MIN_MEMORY_KIB[Math.min(iterations, ARGON2_MIN_MEMORY_KIB.length) - 1];
        if (memoryKib >= floor) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.PASSWORD_HASH_WEAK,
                "warden.users.password.argon2 is m=" + memoryKib + " KiB, t=" + iterations + ", p=" + parallelism
                        + "; with " + iterations + (iterations == 1 ? " pass" : " passes") + " OWASP asks for at "
                        + "least " + floor + " KiB, so a stolen password table is cheaper to crack than it should be.",
                "Raise warden.users.password.argon2.memory-kib or .iterations to one of OWASP's equivalent Argon2id "
                        + "minimums: m=47104 t=1, m=19456 t=2 (Warden's default), m=12288 t=3, m=9216 t=4 or "
                        + "m=7168 t=5, each with p=1 (OWASP Password Storage Cheat Sheet, Argon2id: " + OWASP_ARGON2
                        + "). Stored hashes are upgraded as their users next sign in."));
    }

    /**
     * {@code signing-key-stale}: the newest OAuth signing key is older than the rotation period, so the key that
     * signs now has signed for longer than that.
     *
     * @param newestKey when the newest unexpired signing key was made; empty when none exists yet
     */
    public static Optional<Finding> signingKey(Optional<Instant> newestKey, Duration rotation, Instant now) {
        if (newestKey.isEmpty()) {
            return Optional.empty();
        }
        Duration age = Duration.between(newestKey.get(), now);
        if (age.compareTo(rotation) <= 0) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.SIGNING_KEY_STALE,
                "The newest OAuth signing key was made " + describe(age) + " ago and warden.oauth.key-rotation-days "
                        + "is " + describe(rotation) + ": the key signing tokens now has signed for longer than "
                        + "its rotation period.",
                "Warden makes the next key when it signs a token or serves GET /oauth/jwks after the newest key is "
                        + "due, so a stale key means neither happened since or making a key failed. Request GET "
                        + "/oauth/jwks, then look in the API instances' log for \"made a new OAuth signing key\" or "
                        + "for errors of SigningKeys (a database refusing writes, a changed "
                        + "warden.oauth.key-encryption-key)."));
    }

    /** {@code topic-replication-factor-1}: topics are created with one replica outside a dev deployment. */
    public static Optional<Finding> topicReplication(short replicationFactor, boolean dev) {
        if (dev || replicationFactor > 1) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.TOPIC_REPLICATION_FACTOR_1,
                "warden.kafka.topics.replication-factor is " + replicationFactor + ": the topics Warden creates "
                        + "keep one copy, so losing one broker's disk loses audit entries and events Kafka had "
                        + "acknowledged, and decisions stop (fail closed) while that broker is down.",
                "Set warden.kafka.topics.replication-factor to 3 (WARDEN_KAFKA_TOPICS_REPLICATION__FACTOR=3) with "
                        + "min.insync.replicas=2 on the brokers. The setting applies to topics Warden creates; raise "
                        + "the factor of existing topics with kafka-reassign-partitions.sh."));
    }

    /**
     * {@code webhook-secrets-unencrypted}: webhook signing secrets are, or will be, stored in clear.
     *
     * @param keyConfigured  whether {@code warden.webhooks.encryption-key} is set
     * @param storedInClear  secrets stored in clear now (before a key was set, or with none)
     */
    public static Optional<Finding> webhookSecrets(boolean keyConfigured, long storedInClear) {
        if (!keyConfigured) {
            return Optional.of(new Finding(
                    FindingId.WEBHOOK_SECRETS_UNENCRYPTED,
                    "warden.webhooks.encryption-key is not set: webhook signing secrets are stored as issued ("
                            + storedInClear + " now), so whoever reads the database or a backup can forge Warden's "
                            + "webhook signatures.",
                    "Set warden.webhooks.encryption-key (WARDEN_WEBHOOKS_ENCRYPTION__KEY) to base64 of 32 random "
                            + "bytes (openssl rand -base64 32) on every instance of the api and sinks roles. Secrets "
                            + "stored before stay readable but in clear: delete and re-create those endpoints."));
        }
        if (storedInClear == 0) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.WEBHOOK_SECRETS_UNENCRYPTED,
                storedInClear + " webhook signing secrets were stored before warden.webhooks.encryption-key was set "
                        + "and are still in clear.",
                "Delete and re-create those endpoints (DELETE /webhooks/{id}, then POST /webhooks): new secrets are "
                        + "stored encrypted. Give each receiver its new secret."));
    }

    /**
     * {@code sink-failing} or {@code sink-lagging}: sink {@code sink} of this process is degraded.
     *
     * @param degradedReason the sink's own account ({@code SinkHealth.degradedReason()}), which starts with
     *                       {@code failing} when its writes keep failing and otherwise says it falls behind
     */
    public static Optional<Finding> sink(String sink, Optional<String> degradedReason) {
        if (degradedReason.filter(r -> r.startsWith("backlog nears")).isPresent()) {
            return Optional.of(new Finding(
                    FindingId.SINK_BACKLOG_NEAR_RETENTION,
                    "Sink " + sink + " on this instance: " + degradedReason.get() + ".",
                    "Entries the sink has not delivered are deleted when the topic's retention passes: fix its target "
                            + "now (GET /observe/health says why it is behind), or raise retention.ms of the topic "
                            + "for the time it takes; entries already gone can still be exported from GET "
                            + "/audit/export."));
        }
        if (degradedReason.filter(r -> r.startsWith("paused")).isPresent()) {
            return Optional.of(new Finding(
                    FindingId.SINK_PAUSED,
                    "Sink " + sink + " on this instance is paused by the administrator.",
                    "Nothing is delivered to it while it is paused, and its backlog grows toward the topic's "
                            + "retention: POST /admin/v1/sinks/{name}/resume when its target is ready."));
        }
        return degradedReason.map(reason -> reason.startsWith("failing")
                ? new Finding(
                        FindingId.SINK_FAILING,
                        "Sink " + sink + " on this instance is " + reason + ".",
                        "The sink retries and writes nothing until its target takes the batch: check the target "
                                + "(PostgreSQL, the webhook receivers, the SIEM endpoint) and the error above. GET "
                                + "/observe/health shows when it recovers; records it gives up on are listed by GET "
                                + "/admin/v1/dead-letters.")
                : new Finding(
                        FindingId.SINK_LAGGING,
                        "Sink " + sink + " on this instance is " + reason + ".",
                        "The sink consumes more slowly than records arrive: check its target's latency and errors, "
                                + "and run more instances of the sinks role (they share the topic's partitions). "
                                + "warden_sink_lag_records on GET /observe/metrics shows the lag."));
    }

    /**
     * {@code rate-limit-store-memory-multi-instance}: rate limits are counted in each process while several API
     * instances run.
     *
     * @param liveInstances API instances whose heartbeat was seen within {@link ApiHeartbeat#LIVE_WINDOW}
     */
    public static Optional<Finding> rateLimitStore(StoreKind store, long liveInstances) {
        if (store != StoreKind.MEMORY || liveInstances <= 1) {
            return Optional.empty();
        }
        return Optional.of(new Finding(
                FindingId.RATE_LIMIT_STORE_MEMORY_MULTI_INSTANCE,
                liveInstances + " API instances reported in the last " + ApiHeartbeat.LIVE_WINDOW.toSeconds()
                        + " seconds and warden.rate-limit.store is memory: each instance counts on its own, so a "
                        + "client spreading its requests gets up to " + liveInstances + " times every limit "
                        + "(sign-in attempts, registrations, token requests).",
                "Set warden.rate-limit.store to redis (WARDEN_RATE__LIMIT_STORE=redis) and point "
                        + "warden.rate-limit.redis-url or warden.redis.url at one Redis that every instance shares."));
    }

    /** A duration in the largest whole unit that fits: days, hours or minutes. */
    private static String describe(Duration d) {
        if (d.toDays() >= 1) {
            return plural(d.toDays(), "day");
        }
        if (d.toHours() >= 1) {
            return plural(d.toHours(), "hour");
        }
        return plural(d.toMinutes(), "minute");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }
}
