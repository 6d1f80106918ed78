package dev.warden.api.webhooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.access.Principal;
import dev.warden.api.http.ListCursor;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.api.observe.WardenMeters;
import dev.warden.runtime.consumer.DeadLetters;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import dev.warden.runtime.db.ServerSecrets;
import dev.warden.runtime.outbound.TargetGuard;
import dev.warden.sinks.webhooks.WebhookCounters;
import dev.warden.sinks.webhooks.WebhookWorker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.logging.Logger;

/**
 * The webhooks feature wired from configuration, shared by both of its halves: the REST surface of the
 * {@code api} role ({@link #routes}) and the delivery worker of the {@code sinks} role ({@link #startWorker}).
 * Create one per process: it logs, once, when signing secrets will be stored unencrypted.
 */
public final class Webhooks implements Component {
    private static final Logger LOG = Logger.getLogger(Webhooks.class.getName());

    private final WebhooksConfig config;
    private final JdbcWebhookRepository repository;
    private final WebhookCounters counters = new WebhookCounters();
    private final InstantSource clock;
    private final Database db;
    private final long maxBodyBytes;
    private final WebhookService service;
    private final TargetGuard guard;

    private Webhooks(
            WebhooksConfig config,
            JdbcWebhookRepository repository,
            Database db,
            InstantSource clock,
            long maxBodyBytes) {
        this.db = db;
        this.maxBodyBytes = maxBodyBytes;
        this.config = config;
        this.repository = repository;
        this.clock = clock;
        this.service = new WebhookService(repository, clock);
        this.guard = TargetGuard.system(config.allowPrivateTargets());
    }

    /** The endpoints' service the routes use: the console creates, lists and deletes through it too. */
    public WebhookService service() {
        return service;
    }

    /**
     * A new endpoint's request read as {@code POST /webhooks} reads its body ({@code url}, {@code eventTypes},
     * {@code description}), the URL checked by the same outbound guard; a bad value is a 400 naming the field.
     * The caller must be one who may own endpoints ({@link WebhookService#create} checks it again).
     */
    public WebhookService.NewWebhook parseCreate(Principal caller, ObjectNode body) {
        WebhookService.owner(caller); // an agent gets its 403 before the URL is resolved
        return WebhookJson.parseCreate(body, guard);
    }

    /**
     * Wires the feature from {@code warden.webhooks}; warns once when {@code encryption-key} is unset and this
     * process stores or reads secrets ({@code usesSecrets}: the api or sinks role runs). Its routes read bodies of
     * at most {@code maxBodyBytes}.
     */
    public static Webhooks create(
            WebhooksConfig config, boolean usesSecrets, Database db, InstantSource clock, long maxBodyBytes) {
        SecretCipher cipher = config.keyBytes().map(SecretCipher::aes256).orElseGet(() -> {
            if (usesSecrets) {
                LOG.warning("warden.webhooks.encryption-key is not set: webhook signing secrets are stored unencrypted"
                        + " in the database; set it to base64 of 32 random bytes (e.g. `openssl rand -base64 32`)");
            }
            return SecretCipher.none();
        });
        return new Webhooks(config, new JdbcWebhookRepository(db, cipher), db, clock, maxBodyBytes);
    }

    /** {@code /webhooks}. */
    @Override
    public List<WardenApi.Mount> mounts() {
        return List.of(new WardenApi.Mount(
                "/webhooks",
                new WebhookRoutes(service, guard, new ListCursor(ServerSecrets.get(db, "list-cursor")), maxBodyBytes)));
    }

    /** The delivery counters ({@code warden.webhooks.*}; zero where the sinks role does not run). */
    @Override
    public void bindMeters(MeterRegistry registry) {
        counter(registry, "warden.webhooks.delivered", "Webhook deliveries answered 2xx.", s -> s.delivered());
        counter(registry, "warden.webhooks.retried", "Webhook delivery attempts after the first.", s -> s.retried());
        counter(
                registry,
                "warden.webhooks.dropped",
                "Webhook deliveries given up (retries exhausted, 3xx/4xx, refused target).",
                s -> s.dropped());
        counter(registry, "warden.webhooks.disabled", "Webhook endpoints disabled by a 410 answer.", s -> s.disabled());
    }

    private void counter(
            MeterRegistry registry, String name, String help, ToDoubleFunction<WebhookCounters.Snapshot> value) {
        FunctionCounter.builder(name, counters, c -> value.applyAsDouble(c.snapshot()))
                .description(help)
                .register(registry);
    }

    /**
     * Starts the delivery worker on {@code eventsTopic}, consumer group {@code groupId}, waiting at most
     * {@code waits}' fetch wait for a batch to fill ({@code warden.streams.background-fetch-wait-ms}).
     */
    public Worker startWorker(String kafkaBootstrap, String groupId, String eventsTopic, GroupWaits waits) {
        WebhookWorker worker = new WebhookWorker(
                kafkaBootstrap,
                groupId,
                eventsTopic,
                waits,
                repository,
                config.toOptions(),
                counters,
                clock,
                letters -> DeadLetters.store(db.dataSource(), letters));
        worker.start();
        return new Worker(worker);
    }

    /** A running delivery worker. */
    public static final class Worker implements Component {
        private final WebhookWorker worker;

        private Worker(WebhookWorker worker) {
            this.worker = worker;
        }

        /** UP once the worker has joined its consumer group. */
        public HealthCheck health() {
            return HealthCheck.of("webhook-worker", () -> {
                if (!worker.isAssigned()) {
                    return Result.down("joining the consumer group");
                }
                return worker.health().degradedReason().map(Result::degraded).orElse(Result.up("consuming"));
            });
        }

        @Override
        public List<HealthCheck> healthChecks() {
            return List.of(health());
        }

        /** The worker's lag, dead letters and batches ({@code warden.sink.*}, sink {@code webhooks}). */
        @Override
        public void bindMeters(MeterRegistry registry) {
            WardenMeters.sinks(registry, List.of(sinkHealth()));
        }

        /** Dead letters and lag of the worker, for metrics and the doctor. */
        public SinkHealth sinkHealth() {
            return worker.health();
        }

        @Override
        public void close() {
            worker.close();
        }
    }
}
