package dev.warden.api.doctor;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.db.Database;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The security doctor of an API instance: examines this deployment's configuration and running state and
 * reports what weakens it ({@link Checks}, docs/doctor.md). It owns the instance's {@link ApiHeartbeat}, by which
 * it counts the API instances, and stops it on {@link #close()}.
 *
 * <p>An examination reads the configuration facts given at start, this process's counters and sinks, and a few
 * rows of PostgreSQL (when the database is down it fails with the database's error, like any request). It
 * changes nothing, and never sees the bootstrap token: only {@link DoctorSettings#bootstrapToken() its verdict}.
 * Thread-safe.
 */
public final class Doctor implements Component {
    private final DoctorSettings settings;
    private final Issuer issuer;
    private final ClientIp clientIp;
    private final List<SinkHealth> sinks;
    private final StoredFacts facts;
    private final ApiHeartbeat heartbeat;
    private final InstantSource clock;

    Doctor(
            DoctorSettings settings,
            Issuer issuer,
            ClientIp clientIp,
            List<SinkHealth> sinks,
            StoredFacts facts,
            ApiHeartbeat heartbeat,
            InstantSource clock) {
        this.settings = settings;
        this.issuer = issuer;
        this.clientIp = clientIp;
        this.sinks = List.copyOf(sinks);
        this.facts = facts;
        this.heartbeat = heartbeat;
        this.clock = clock;
    }

    /**
     * Starts the doctor of this API instance, and its heartbeat.
     *
     * @param settings what it reads of the configuration ({@link DoctorSettings#from})
     * @param issuer   the OAuth issuer (read at each examination: it may be resolved after start)
     * @param clientIp the client-IP rule of rate limiting, whose count of ignored forwarding headers it reports
     * @param sinks    the sink workers of this process (none unless it runs the sinks role)
     * @param db       where the heartbeat is kept and signing keys and webhook secrets are counted
     */
    public static Doctor start(
            DoctorSettings settings,
            Issuer issuer,
            ClientIp clientIp,
            List<SinkHealth> sinks,
            Database db,
            InstantSource clock) {
        ApiHeartbeat heartbeat =
                ApiHeartbeat.start(new JdbcApiInstanceRepository(db), settings.instanceId(), settings.roles(), clock);
        return new Doctor(settings, issuer, clientIp, sinks, new JdbcStoredFacts(db), heartbeat, clock);
    }

    /** Runs every check now. */
    public Report examine() {
        Instant now = clock.instant();
        List<Optional<Finding>> results = new ArrayList<>(List.of(
                Checks.anonymousRegistration(settings.anonymousRegistration()),
                Checks.mcpRegistration(settings.mcpRegistrationOpen()),
                Checks.forwardedHeaders(!clientIp.trustedProxies().isEmpty(), clientIp.ignoredForwardingHeaders()),
                Checks.bootstrapToken(settings.bootstrapToken(), settings.bootstrapEnabled()),
                Checks.bootstrapStillOn(settings.bootstrapEnabled(), facts.administratorExists()),
                Checks.issuer(issuer.value(), settings.issuerConfigured(), settings.dev()),
                Checks.passwordHashing(
                        settings.password().memoryKib(),
                        settings.password().iterations(),
                        settings.password().parallelism()),
                Checks.signingKey(facts.newestSigningKey(now), settings.keyRotation(), now),
                Checks.topicReplication(settings.replicationFactor(), settings.dev()),
                Checks.webhookSecrets(settings.webhookKeyConfigured(), facts.webhookSecretsInClear()),
                Checks.rateLimitStore(settings.rateLimitStore(), heartbeat.liveInstances())));
        for (SinkHealth sink : sinks) {
            results.add(Checks.sink(sink.sink(), sink.degradedReason()));
        }
        return new Report(now, results.stream().flatMap(Optional::stream).toList());
    }

    /**
     * The report, for the bootstrap administrator: {@code GET /admin/v1/doctor}, and at its first path,
     * {@code GET /auth/admin/doctor}, for old clients.
     */
    @Override
    public List<WardenApi.Mount> mounts() {
        DoctorRoutes routes = new DoctorRoutes(this);
        String home = WardenApi.ADMIN_PATH + "/doctor";
        return List.of(
                new WardenApi.Mount(home, routes), new WardenApi.Mount("/auth/admin/doctor", routes.movedTo(home)));
    }

    /** Stops the heartbeat: this instance drops out of the count within {@link ApiHeartbeat#LIVE_WINDOW}. */
    @Override
    public void close() {
        heartbeat.close();
    }
}
