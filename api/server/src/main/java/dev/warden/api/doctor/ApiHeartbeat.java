package dev.warden.api.doctor;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This API instance's heartbeat: every {@link #INTERVAL} it records itself in the {@link ApiInstanceRepository}
 * and forgets instances silent for {@link #FORGET_AFTER}; an instance seen within {@link #LIVE_WINDOW} counts as
 * running. A database outage never stops it: a failed beat is logged (once per outage) and the next one tries
 * again. The beats run on one daemon thread; {@link #liveInstances()} may be called from any thread.
 */
public final class ApiHeartbeat implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ApiHeartbeat.class.getName());

    /** Time between two beats. */
    public static final Duration INTERVAL = Duration.ofSeconds(15);
    /** An instance seen this recently is running: four intervals, so one or two missed beats do not count. */
    public static final Duration LIVE_WINDOW = Duration.ofSeconds(60);
    /** Instances silent this long are deleted (instance ids are usually random per process). */
    public static final Duration FORGET_AFTER = Duration.ofDays(1);

    private final ApiInstanceRepository repository;
    private final String instanceId;
    private final String roles;
    private final InstantSource clock;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("warden-api-heartbeat").daemon().factory());
    /** Whether the last beat failed; read and written by the beating thread only. */
    private boolean failing;

    ApiHeartbeat(ApiInstanceRepository repository, String instanceId, String roles, InstantSource clock) {
        this.repository = repository;
        this.instanceId = instanceId;
        this.roles = roles;
        this.clock = clock;
    }

    /** Starts beating now and every {@link #INTERVAL} as instance {@code instanceId} running {@code roles}. */
    public static ApiHeartbeat start(
            ApiInstanceRepository repository, String instanceId, String roles, InstantSource clock) {
        ApiHeartbeat heartbeat = new ApiHeartbeat(repository, instanceId, roles, clock);
        heartbeat.scheduler.scheduleWithFixedDelay(heartbeat::beat, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    /** How many API instances, this one included once it has beaten, were seen within {@link #LIVE_WINDOW}. */
    public long liveInstances() {
        return repository.seenSince(clock.instant().minus(LIVE_WINDOW));
    }

    /** One beat. Never throws: a scheduled task that throws is never run again. */
    void beat() {
        try {
            repository.beat(instanceId, roles, clock.instant());
            repository.forgetBefore(clock.instant().minus(FORGET_AFTER));
            if (failing) {
                LOG.info("API heartbeat of " + instanceId + " recorded again");
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                LOG.log(
                        Level.WARNING,
                        "API heartbeat of " + instanceId + " failed; retrying every " + INTERVAL.toSeconds() + " s: "
                                + e.getMessage());
            }
            failing = true;
        }
    }

    /** Stops beating; a beat under way is interrupted. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
