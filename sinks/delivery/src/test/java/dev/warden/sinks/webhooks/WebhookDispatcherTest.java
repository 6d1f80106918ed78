package dev.warden.sinks.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.outbound.TargetGuard;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Dispatch, retry, drop and disable rules with a scripted transport; deliveries run inline, nothing sleeps. */
class WebhookDispatcherTest {
    private static final Instant CREATED = Instant.parse("2026-03-01T10:00:00Z");
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    private final ScriptedTransport transport = new ScriptedTransport();
    private final List<Duration> sleeps = new ArrayList<>();
    private final List<String> disabled = new ArrayList<>();
    private final List<WebhookDelivery> deliveries = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final WebhookCounters counters = new WebhookCounters();
    private final WebhookDirectory directory = new WebhookDirectory() {
        @Override
        public List<WebhookEndpoint> activeEndpoints() {
            return List.of();
        }

        @Override
        public void disable(String endpointId, Instant at) {
            disabled.add(endpointId);
        }

        @Override
        public void recordDelivery(WebhookDelivery delivery) {
            deliveries.add(delivery);
        }
    };
    private final WebhookDispatcher dispatcher = dispatcher(new TargetGuard(
            host -> {
                throw new AssertionError("no resolution with private targets allowed");
            },
            true));

    private WebhookDispatcher dispatcher(TargetGuard guard) {
        return new WebhookDispatcher(
                directory,
                transport,
                guard,
                WebhookOptions.builder()
                        .maxAttempts(4)
                        .backoff(Duration.ofSeconds(1))
                        .build(),
                counters,
                () -> Instant.ofEpochSecond(1_700_000_000L),
                sleeps::add,
                Runnable::run);
    }

    @Test
    void aDeliveryIsSignedPostOfTheEventJsonWithStandardWebhooksHeaders() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        StreamEvent event = event(7, EventType.AGENT_CREATED, "alice");

        Ticket ticket = new Ticket();
        dispatcher.dispatch(event, ticket);

        Sent sent = transport.sent.getFirst();
        assertThat(sent.url()).isEqualTo(URI.create("http://receiver.test/a"));
        assertThat(sent.body()).isEqualTo(StreamEventCodec.encode(event));
        assertThat(sent.headers())
                .containsEntry("webhook-id", "7")
                .containsEntry("webhook-timestamp", "1700000000")
                .containsEntry("Content-Type", "application/json")
                .containsEntry("webhook-signature", new WebhookSigner(SECRET).sign("7", 1_700_000_000L, sent.body()));
        assertThat(ticket.finished).hasValue(1);
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(1, 0, 0, 0));
    }

    @Test
    void serverErrorsAreRetriedWithDoublingBackoffAndTheSameWebhookId() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        transport.script("a", 500, 503, 200);

        Ticket ticket = new Ticket();
        dispatcher.dispatch(event(3, EventType.AGENT_ROTATED, "alice"), ticket);

        assertThat(transport.sent)
                .hasSize(3)
                .extracting(s -> s.headers().get("webhook-id"))
                .containsOnly("3");
        assertThat(sleeps).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(ticket.finished).hasValue(1);
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(1, 2, 0, 0));
        assertThat(deliveries).singleElement().satisfies(d -> {
            assertThat(d.endpointId()).isEqualTo("a");
            assertThat(d.eventId()).isEqualTo("3");
            assertThat(d.outcome()).isEqualTo("delivered");
            assertThat(d.attempts()).isEqualTo(3);
            assertThat(d.last()).isEqualTo("HTTP 200");
        });
    }

    @Test
    void afterFourFailedAttemptsTheEventIsDroppedAndCounted() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        transport.script("a", 500, -1, 502, 500, 200);

        Ticket ticket = new Ticket();
        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), ticket);

        assertThat(transport.sent).hasSize(4);
        assertThat(sleeps).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
        assertThat(ticket.finished).hasValue(1);
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(0, 3, 1, 0));
        assertThat(deliveries).singleElement().satisfies(d -> {
            assertThat(d.outcome()).isEqualTo("dropped");
            assertThat(d.attempts()).isEqualTo(4);
            assertThat(d.last()).isEqualTo("HTTP 500");
        });
    }

    @Test
    void clientErrorsAndRedirectsAreDroppedWithoutRetry() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        transport.script("a", 400, 302);

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), new Ticket());
        dispatcher.dispatch(event(2, EventType.AGENT_CREATED, "alice"), new Ticket());

        assertThat(transport.sent).hasSize(2);
        assertThat(sleeps).isEmpty();
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(0, 0, 2, 0));
        assertThat(deliveries)
                .extracting(WebhookDelivery::outcome, WebhookDelivery::attempts, WebhookDelivery::last)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("dropped", 1, "HTTP 400"),
                        org.assertj.core.groups.Tuple.tuple("dropped", 1, "HTTP 302"));
    }

    @Test
    void tooManyRequestsAndRequestTimeoutAreRetried() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        transport.script("a", 429, 408, 200);

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), new Ticket());

        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(1, 2, 0, 0));
    }

    @Test
    void goneDisablesTheEndpointAndItsLaterEventsAreNotSent() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty()), endpoint("b", Optional.empty())));
        transport.script("a", 410);

        Ticket first = new Ticket();
        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), first);
        Ticket second = new Ticket();
        dispatcher.dispatch(event(2, EventType.AGENT_REVOKED, "alice"), second);

        assertThat(disabled).containsExactly("a");
        assertThat(transport.sentTo("a")).containsExactly("1");
        assertThat(transport.sentTo("b")).containsExactly("1", "2");
        assertThat(first.finished).hasValue(1);
        assertThat(second.finished).hasValue(1);
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(2, 0, 0, 1));
    }

    @Test
    void eventsReachAnEndpointInDispatchOrder() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        transport.script("a", 500, 200);

        for (int id = 10; id < 15; id++) {
            dispatcher.dispatch(event(id, EventType.AGENT_UPDATED, "alice"), new Ticket());
        }

        assertThat(transport.sentTo("a")).containsExactly("10", "10", "11", "12", "13", "14");
    }

    @Test
    void aUsersEndpointGetsOnlyThatUsersEventsAndTheAdminsGetsAll() {
        dispatcher.refresh(List.of(endpoint("alice", Optional.of("alice")), endpoint("admin", Optional.empty())));

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), new Ticket());
        dispatcher.dispatch(event(2, EventType.AGENT_CREATED, "bob"), new Ticket());
        dispatcher.dispatch(
                new StreamEvent("3", EventType.AUDIT, CREATED, Map.of(), Optional.empty(), Optional.empty()),
                new Ticket());

        assertThat(transport.sentTo("alice")).containsExactly("1");
        assertThat(transport.sentTo("admin")).containsExactly("1", "2", "3");
    }

    @Test
    void anEndpointGetsOnlyItsEventTypesAndNothingFromBeforeItsCreation() {
        WebhookEndpoint revokedOnly = new WebhookEndpoint(
                "a",
                URI.create("http://receiver.test/a"),
                Set.of(EventType.AGENT_REVOKED),
                Optional.empty(),
                SECRET,
                CREATED);
        dispatcher.refresh(List.of(revokedOnly));

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), new Ticket());
        dispatcher.dispatch(event(2, EventType.AGENT_REVOKED, "alice"), new Ticket());
        Ticket old = new Ticket();
        dispatcher.dispatch(
                new StreamEvent(
                        "3",
                        EventType.AGENT_REVOKED,
                        CREATED.minusMillis(1),
                        Map.of(),
                        Optional.empty(),
                        Optional.of("alice")),
                old);

        assertThat(transport.sentTo("a")).containsExactly("2");
        assertThat(old.finished).hasValue(1);
    }

    @Test
    void anEventIsFinishedOnlyWhenEveryEndpointIsDoneWithIt() {
        List<Runnable> deferred = new ArrayList<>();
        WebhookDispatcher deferring = new WebhookDispatcher(
                directory,
                transport,
                new TargetGuard(h -> null, true),
                WebhookOptions.builder().build(),
                counters,
                Instant::now,
                sleeps::add,
                deferred::add);
        deferring.refresh(List.of(endpoint("a", Optional.empty()), endpoint("b", Optional.empty())));

        Ticket ticket = new Ticket();
        deferring.dispatch(event(1, EventType.AGENT_CREATED, "alice"), ticket);
        deferred.getFirst().run();
        assertThat(ticket.finished).hasValue(0);
        deferred.get(1).run();

        assertThat(ticket.finished).hasValue(1);
    }

    @Test
    void aRefusedTargetAtDeliveryTimeIsDroppedWithoutSending() {
        WebhookDispatcher guarded = dispatcher(new TargetGuard(
                host -> new InetAddress[] {InetAddress.getByAddress(host, new byte[] {10, 0, 0, 7})}, false));
        guarded.refresh(List.of(endpoint("a", Optional.empty())));

        Ticket ticket = new Ticket();
        guarded.dispatch(event(1, EventType.AGENT_CREATED, "alice"), ticket);

        assertThat(transport.sent).isEmpty();
        assertThat(ticket.finished).hasValue(1);
        assertThat(counters.snapshot().dropped()).isEqualTo(1);
    }

    @Test
    void queuedEventsOfADeletedEndpointFinishWithoutDelivery() {
        List<Runnable> deferred = new ArrayList<>();
        WebhookDispatcher deferring = new WebhookDispatcher(
                directory,
                transport,
                new TargetGuard(h -> null, true),
                WebhookOptions.builder().build(),
                counters,
                Instant::now,
                sleeps::add,
                deferred::add);
        deferring.refresh(List.of(endpoint("a", Optional.empty())));
        Ticket ticket = new Ticket();
        deferring.dispatch(event(1, EventType.AGENT_CREATED, "alice"), ticket);

        deferring.refresh(List.of());
        deferred.getFirst().run();

        assertThat(transport.sent).isEmpty();
        assertThat(ticket.finished).hasValue(1);
        assertThat(counters.snapshot()).isEqualTo(new WebhookCounters.Snapshot(0, 0, 0, 0));
    }

    @Test
    void abandonedEventsAreNotDelivered() {
        dispatcher.refresh(List.of(endpoint("a", Optional.empty())));
        Ticket ticket = new Ticket();
        ticket.abandoned = true;

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), ticket);

        assertThat(transport.sent).isEmpty();
    }

    @Test
    void anEndpointWithAnUnusableSecretIsSkipped() {
        dispatcher.refresh(List.of(
                new WebhookEndpoint(
                        "bad",
                        URI.create("http://receiver.test/bad"),
                        Set.of(),
                        Optional.empty(),
                        "aesgcm:v1:garbage",
                        CREATED),
                endpoint("a", Optional.empty())));

        dispatcher.dispatch(event(1, EventType.AGENT_CREATED, "alice"), new Ticket());

        assertThat(dispatcher.endpointCount()).isEqualTo(1);
        assertThat(transport.sentTo("a")).containsExactly("1");
        assertThat(transport.sentTo("bad")).isEmpty();
    }

    private static WebhookEndpoint endpoint(String name, Optional<String> audience) {
        return new WebhookEndpoint(
                name, URI.create("http://receiver.test/" + name), Set.of(), audience, SECRET, CREATED);
    }

    private static StreamEvent event(long id, EventType type, String userId) {
        return new StreamEvent(
                Long.toString(id),
                type,
                CREATED.plusSeconds(id),
                Map.of("n", id),
                Optional.of("agt_" + id),
                Optional.of(userId));
    }

    private static final class Ticket implements WebhookDispatcher.Ticket {
        final AtomicInteger finished = new AtomicInteger();
        volatile boolean abandoned;

        @Override
        public boolean abandoned() {
            return abandoned;
        }

        @Override
        public void finished() {
            finished.incrementAndGet();
        }
    }

    private record Sent(URI url, Map<String, String> headers, byte[] body) {}

    /** Answers each endpoint (last path segment) from its script, then 200; -1 stands for a timeout. */
    private static final class ScriptedTransport implements WebhookTransport {
        final List<Sent> sent = new ArrayList<>();
        final Map<String, Deque<Integer>> scripts = new HashMap<>();

        void script(String endpoint, Integer... statuses) {
            scripts.put(endpoint, new ArrayDeque<>(List.of(statuses)));
        }

        List<String> sentTo(String endpoint) {
            return sent.stream()
                    .filter(s -> s.url().getPath().equals("/" + endpoint))
                    .map(s -> s.headers().get("webhook-id"))
                    .toList();
        }

        @Override
        public synchronized int post(URI url, Map<String, String> headers, byte[] body) throws IOException {
            sent.add(new Sent(url, Map.copyOf(headers), body.clone()));
            Integer status = scripts.getOrDefault(url.getPath().substring(1), new ArrayDeque<>())
                    .poll();
            if (status != null && status == -1) {
                throw new HttpTimeoutException("scripted timeout");
            }
            return status == null ? 200 : status;
        }
    }
}
