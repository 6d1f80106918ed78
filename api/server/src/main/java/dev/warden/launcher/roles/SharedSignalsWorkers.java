package dev.warden.launcher.roles;

import dev.warden.api.Component;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.consumer.SinkWorker;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.TargetGuard;
import dev.warden.sinks.ssf.SetSigner;
import dev.warden.sinks.ssf.SignalFeeder;
import dev.warden.sinks.ssf.SignalPusher;
import dev.warden.sinks.ssf.SignalStreams;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The Shared Signals transmitter's half in the {@code sinks} role (docs/shared-signals.md): the feeder, a sink worker
 * of {@code warden.events} that queues each security signal as a signed token per stream, exactly once, and the
 * pusher that delivers the push streams' queues. Polled streams are read by the API role.
 */
public final class SharedSignalsWorkers implements Component {
    /** The longest wait between two pushes to a receiver that keeps failing. */
    static final Duration RETRY_CEILING = Duration.ofSeconds(60);
    /** The most one push may take. */
    static final Duration PUSH_DEADLINE = Duration.ofSeconds(10);

    private final SinkWorker feeder;
    private final SignalPusher pusher;
    private final GuardedHttp http;
    private final SignalStreams streams;

    private SharedSignalsWorkers(SinkWorker feeder, SignalPusher pusher, GuardedHttp http, SignalStreams streams) {
        this.feeder = feeder;
        this.pusher = pusher;
        this.http = http;
        this.streams = streams;
    }

    /**
     * Starts both workers.
     *
     * @param issuer    the tokens' {@code iss} (read when the first signal is signed: the issuer may be resolved
     *                  only once the server listens)
     * @param retention how long a token waits for its receiver before it is dropped
     * @param waits     the feeder's fetch wait and retry backoff ({@link SinksRole#backgroundWaits})
     */
    public static SharedSignalsWorkers start(
            Database db,
            SignalStreams streams,
            String bootstrap,
            String groupPrefix,
            String topic,
            Supplier<String> issuer,
            SetSigner signer,
            boolean allowPrivateTargets,
            Duration retention,
            GroupWaits waits,
            InstantSource clock,
            Tracer tracer) {
        GuardedHttp http = new GuardedHttp(TargetGuard.system(allowPrivateTargets), PUSH_DEADLINE, Optional.empty());
        SignalPusher pusher = new SignalPusher(db, streams, http, clock, RETRY_CEILING).start();
        SinkWorker feeder = new SinkWorker(
                SignalFeeder.SINK,
                bootstrap,
                groupPrefix,
                topic,
                2_000,
                new SignalFeeder(db, streams, topic, issuer, signer, retention, clock, pusher::wake),
                new SinkCounters(),
                tracer,
                waits);
        feeder.start();
        return new SharedSignalsWorkers(feeder, pusher, http, streams);
    }

    /** The feeder's lag, failures and dead letters. */
    public SinkHealth sinkHealth() {
        return feeder.health();
    }

    /**
     * {@code warden_ssf_pending_tokens}: Security Event Tokens queued and not yet delivered or acknowledged, over every
     * stream (a receiver that is away, or a paused stream, makes it grow).
     */
    @Override
    public void bindMeters(MeterRegistry registry) {
        Gauge.builder("warden.ssf.pending.tokens", streams, SharedSignalsWorkers::pending)
                .description("Security Event Tokens queued for Shared Signals receivers and not yet taken")
                .register(registry);
    }

    private static double pending(SignalStreams streams) {
        try {
            return streams.pendingTokens();
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(HealthCheck.of("shared-signals", () -> {
            if (!feeder.isAssigned()) {
                return Result.down("joining the consumer group");
            }
            return feeder.health().degradedReason().map(Result::degraded).orElseGet(() -> Result.up("feeding"));
        }));
    }

    @Override
    public void close() {
        pusher.close();
        feeder.close();
        http.close();
    }
}
