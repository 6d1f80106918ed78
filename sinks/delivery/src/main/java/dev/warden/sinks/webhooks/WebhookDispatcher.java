package dev.warden.sinks.webhooks;

import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.TargetGuard;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Fans events out to webhook endpoints. Each endpoint has a lane: a FIFO of events delivered one after
 * another, so an endpoint sees its events in the order they were dispatched (event-id order), while
 * endpoints proceed independently of each other. A delivery is attempted up to
 * {@link WebhookOptions#maxAttempts()} times: 5xx, 408, 429, timeouts and network errors are retried after a
 * doubling backoff; any other non-2xx answer (3xx, 4xx) ends it at once (dropped); 410 Gone disables the
 * endpoint. The SSRF guard is consulted before every attempt.
 *
 * <p>{@link #refresh} and {@link #dispatch} are called from one thread (the worker's); deliveries run on the
 * given executor. An event's {@link Ticket} is finished once every endpoint it was dispatched to is done with
 * it (delivered, dropped, disabled, or the endpoint went away); never when the dispatcher is closing, so that
 * an unfinished event is delivered again rather than lost.
 */
public final class WebhookDispatcher implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookDispatcher.class.getName());
    private static final String USER_AGENT = "Warden-Webhooks/1";

    /** The worker's handle on one dispatched event. */
    public interface Ticket {
        /** True when the event needs no more delivering (its partition moved to another worker). */
        boolean abandoned();

        /** Called once, when every endpoint the event was dispatched to is done with it. */
        void finished();
    }

    /** Waits between attempts; {@link Thread#sleep(Duration)} in production. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private enum Outcome {
        DELIVERED,
        DROPPED,
        DISABLE,
        GONE,
        INTERRUPTED
    }

    private final WebhookDirectory directory;
    private final WebhookTransport transport;
    private final TargetGuard guard;
    private final WebhookOptions options;
    private final WebhookCounters counters;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final Executor executor;
    private final Map<String, Lane> lanes = new HashMap<>();
    private final Set<String> unreadable = new HashSet<>();
    private List<Lane> current = List.of();

    public WebhookDispatcher(
            WebhookDirectory directory,
            WebhookTransport transport,
            TargetGuard guard,
            WebhookOptions options,
            WebhookCounters counters,
            InstantSource clock,
            Sleeper sleeper,
            Executor executor) {
        this.directory = directory;
        this.transport = transport;
        this.guard = guard;
        this.options = options;
        this.counters = counters;
        this.clock = clock;
        this.sleeper = sleeper;
        this.executor = executor;
    }

    /**
     * Replaces the set of active endpoints. Lanes of endpoints no longer listed are retired: their queued
     * events are finished without delivery. Events already dispatched keep their lanes.
     */
    public void refresh(List<WebhookEndpoint> active) {
        Map<String, WebhookEndpoint> byId = new LinkedHashMap<>();
        active.forEach(e -> byId.put(e.id(), e));
        lanes.entrySet().removeIf(entry -> {
            boolean gone = !byId.containsKey(entry.getKey()) || entry.getValue().dead;
            if (gone) {
                entry.getValue().retire();
            }
            return gone;
        });
        List<Lane> next = new ArrayList<>(byId.size());
        for (WebhookEndpoint endpoint : byId.values()) {
            Optional<Lane> lane = Optional.ofNullable(lanes.get(endpoint.id())).or(() -> newLane(endpoint));
            lane.ifPresent(l -> {
                lanes.put(endpoint.id(), l);
                next.add(l);
            });
        }
        current = List.copyOf(next);
    }

    private Optional<Lane> newLane(WebhookEndpoint endpoint) {
        try {
            Lane lane = new Lane(endpoint, new WebhookSigner(endpoint.secret()));
            unreadable.remove(endpoint.id());
            return Optional.of(lane);
        } catch (IllegalArgumentException e) {
            if (unreadable.add(endpoint.id())) {
                LOG.warning(
                        "webhook " + endpoint.id() + " is skipped: its secret is unusable (" + e.getMessage() + ")");
            }
            return Optional.empty();
        }
    }

    /**
     * Queues {@code event} on the lane of every active endpoint that accepts it; finishes the ticket at once
     * when there is none.
     */
    public void dispatch(StreamEvent event, Ticket ticket) {
        List<Lane> targets =
                current.stream().filter(lane -> lane.endpoint.accepts(event)).toList();
        if (targets.isEmpty()) {
            ticket.finished();
            return;
        }
        Job job = new Job(event.id(), StreamEventCodec.encode(event), ticket, new AtomicInteger(targets.size()));
        targets.forEach(lane -> lane.enqueue(job));
    }

    /** Number of endpoints currently dispatched to. */
    public int endpointCount() {
        return current.size();
    }

    /** Stops every delivery in progress; unfinished events stay unfinished (their offsets uncommitted). */
    @Override
    public void close() {
        // Lanes are not retired here: a retired lane finishes its queued events, which would let their offsets
        // be committed. Interrupting the deliveries leaves them unfinished instead.
        if (executor instanceof ExecutorService service) {
            service.shutdownNow();
            try {
                service.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        transport.close();
    }

    /** One event for one or more lanes; finished when the last lane is done with it. */
    private record Job(String webhookId, byte[] body, Ticket ticket, AtomicInteger remaining) {
        void done() {
            if (remaining.decrementAndGet() == 0) {
                ticket.finished();
            }
        }
    }

    /** One endpoint's FIFO of jobs, drained by at most one task at a time. */
    private final class Lane {
        private final WebhookEndpoint endpoint;
        private final WebhookSigner signer;
        private final ArrayDeque<Job> queue = new ArrayDeque<>();
        private boolean running;
        private volatile boolean retired;
        private volatile boolean dead;
        // The job being processed: requests sent and the last answer (one job at a time per lane).
        private int sent;
        private String last = "";

        Lane(WebhookEndpoint endpoint, WebhookSigner signer) {
            this.endpoint = endpoint;
            this.signer = signer;
        }

        void enqueue(Job job) {
            boolean start;
            synchronized (this) {
                queue.add(job);
                start = !running;
                running = true;
            }
            if (start) {
                executor.execute(this::drain);
            }
        }

        void retire() {
            retired = true;
        }

        private void drain() {
            while (true) {
                Job job;
                synchronized (this) {
                    job = queue.poll();
                    if (job == null) {
                        running = false;
                        return;
                    }
                }
                if (process(job) == Outcome.INTERRUPTED) {
                    // Closing: leave this job and the queued ones unfinished, so they are delivered again.
                    return;
                }
                job.done();
            }
        }

        private Outcome process(Job job) {
            if (skip(job)) {
                return Outcome.GONE;
            }
            sent = 0;
            last = "";
            Outcome outcome = attempts(job);
            switch (outcome) {
                case DELIVERED -> {
                    counters.delivered();
                    record(job, "delivered");
                }
                case DROPPED -> {
                    counters.dropped();
                    record(job, "dropped");
                }
                case DISABLE -> {
                    disable();
                    record(job, "disabled");
                }
                case GONE, INTERRUPTED -> {}
            }
            return outcome;
        }

        private boolean skip(Job job) {
            return retired || dead || job.ticket().abandoned();
        }

        private Outcome attempts(Job job) {
            String lastFailure = "";
            for (int attempt = 1; attempt <= options.maxAttempts(); attempt++) {
                if (attempt > 1) {
                    try {
                        sleeper.sleep(options.backoffBefore(attempt));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return Outcome.INTERRUPTED;
                    }
                    if (skip(job)) {
                        return Outcome.GONE;
                    }
                    counters.retried();
                }
                TargetGuard.Verdict verdict = guard.check(endpoint.url());
                if (verdict.outcome() == TargetGuard.Outcome.REFUSED) {
                    last = "refused target";
                    log(job, "its target is refused: " + verdict.reason());
                    return Outcome.DROPPED;
                }
                if (verdict.outcome() == TargetGuard.Outcome.UNRESOLVED) {
                    lastFailure = verdict.reason();
                    last = "unresolved target";
                    continue;
                }
                int status;
                try {
                    sent++;
                    status = transport.post(endpoint.url(), headers(job), job.body());
                } catch (GuardedHttp.RefusedTarget e) {
                    // DNS changed between the check above and the connection: the connection was never made.
                    lastFailure = "refused target: " + e.getMessage();
                    last = "refused target";
                    continue;
                } catch (IOException e) {
                    lastFailure = "network error: " + e.getClass().getSimpleName();
                    last = lastFailure;
                    continue;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Outcome.INTERRUPTED;
                }
                last = "HTTP " + status;
                if (status / 100 == 2) {
                    return Outcome.DELIVERED;
                }
                if (status == 410) {
                    return Outcome.DISABLE;
                }
                lastFailure = "HTTP " + status;
                if (!retriable(status)) {
                    log(job, "it answered " + lastFailure + ", which is not retried");
                    return Outcome.DROPPED;
                }
            }
            log(job, "every attempt (" + options.maxAttempts() + ") failed, the last with " + lastFailure);
            return Outcome.DROPPED;
        }

        private Map<String, String> headers(Job job) {
            long timestamp = clock.instant().getEpochSecond();
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("webhook-id", job.webhookId());
            headers.put("webhook-timestamp", Long.toString(timestamp));
            headers.put("webhook-signature", signer.sign(job.webhookId(), timestamp, job.body()));
            headers.put("Content-Type", "application/json");
            headers.put("User-Agent", USER_AGENT);
            return headers;
        }

        private void disable() {
            try {
                directory.disable(endpoint.id(), clock.instant());
                LOG.warning("webhook " + endpoint.id() + " answered 410 Gone and is now disabled");
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "webhook " + endpoint.id() + " answered 410 Gone but could not be disabled"
                                + " now; its lane stops until the endpoint list is read again",
                        e);
            }
            counters.disabled();
            dead = true;
        }

        /** Keeps how this job ended for the endpoint's owner; a failure to keep it changes nothing else. */
        private void record(Job job, String outcome) {
            try {
                directory.recordDelivery(
                        new WebhookDelivery(endpoint.id(), job.webhookId(), outcome, sent, last, clock.instant()));
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "webhook " + endpoint.id() + ": a delivery could not be recorded", e);
            }
        }

        private void log(Job job, String why) {
            // The endpoint is named by id only: its URL may carry a credential of the receiver.
            LOG.warning("webhook " + endpoint.id() + " dropped event " + job.webhookId() + ": " + why);
        }
    }

    private static boolean retriable(int status) {
        return status >= 500 || status == 408 || status == 429;
    }
}
