package dev.warden.api.doctor;

import dev.warden.pipeline.contract.WireEnum;

/**
 * Every kind of finding the security doctor reports, with its stable id, severity and title (docs/doctor.md).
 * The ids are an API: clients and alerts match on them, so a constant may be added but never renamed.
 */
public enum FindingId implements WireEnum {
    ANONYMOUS_REGISTRATION_ON(
            "anonymous-registration-on", Severity.WARNING, "Anyone may register OAuth clients at /oauth/register"),
    MCP_REGISTRATION_OPEN("mcp-registration-open", Severity.INFO, "Anyone may register OAuth clients at /mcp/register"),
    FORWARDED_HEADERS_UNTRUSTED(
            "forwarded-headers-untrusted", Severity.WARNING, "Forwarding headers arrive but no proxy is trusted"),
    BOOTSTRAP_TOKEN_WEAK("bootstrap-token-weak", Severity.CRITICAL, "The bootstrap administrator token is weak"),
    BOOTSTRAP_TOKEN_STILL_ON(
            "bootstrap-token-still-on",
            Severity.WARNING,
            "An administrator signs in with a second factor, and the static bootstrap token still works"),
    BOOTSTRAP_TOKEN_OFF("bootstrap-token-off", Severity.INFO, "The bootstrap administrator token is turned off"),
    ISSUER_NOT_HTTPS("issuer-not-https", Severity.CRITICAL, "The OAuth issuer is not an https URL"),
    PASSWORD_HASH_WEAK("password-hash-weak", Severity.WARNING, "Password hashing costs less than the OWASP minimum"),
    SIGNING_KEY_STALE("signing-key-stale", Severity.WARNING, "The OAuth signing key is older than its rotation period"),
    TOPIC_REPLICATION_FACTOR_1(
            "topic-replication-factor-1", Severity.WARNING, "Kafka topics are created with replication factor 1"),
    WEBHOOK_SECRETS_UNENCRYPTED(
            "webhook-secrets-unencrypted", Severity.WARNING, "Webhook signing secrets are stored unencrypted"),
    SINK_FAILING("sink-failing", Severity.CRITICAL, "A sink keeps failing"),
    SINK_LAGGING("sink-lagging", Severity.WARNING, "A sink is falling behind"),
    SINK_BACKLOG_NEAR_RETENTION(
            "sink-backlog-near-retention",
            Severity.CRITICAL,
            "A sink's backlog nears the topic's retention: entries will be lost"),
    SINK_PAUSED("sink-paused", Severity.WARNING, "An administrator paused a sink"),
    RATE_LIMIT_STORE_MEMORY_MULTI_INSTANCE(
            "rate-limit-store-memory-multi-instance",
            Severity.WARNING,
            "Rate limits are counted per instance while several API instances run");

    private final String wireName;
    private final Severity severity;
    private final String title;

    FindingId(String wireName, Severity severity, String title) {
        this.wireName = wireName;
        this.severity = severity;
        this.title = title;
    }

    /** The stable kebab-case id. */
    @Override
    public String wireName() {
        return wireName;
    }

    /** How urgent a finding of this kind is. */
    public Severity severity() {
        return severity;
    }

    /** One line saying what is wrong. */
    public String title() {
        return title;
    }
}
