package dev.warden.sinks.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.testing.SharedInfra;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The webhook worker on a real broker, delivering to a local receiver that counts what it gets: an idle worker
 * dozes (its batched fetches stopped, an alarm at its positions), and an event published while it dozes, or just
 * as it begins to, is delivered at once and once. Its batch wait here is a minute and the doze cap five minutes, so
 * an event the alarm missed would not arrive within the test's bound, and an event the alarm handed over and the
 * worker read again would arrive twice.
 */
class WebhookWorkerIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    @Test
    void anIdleWorkerDozesAndAnEventWakesItAtOnce() throws Exception {
        String topic = "webhooks-dozing-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        ConcurrentMap<String, AtomicInteger> received = new ConcurrentHashMap<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            received.computeIfAbsent(exchange.getRequestHeaders().getFirst("webhook-id"), id -> new AtomicInteger())
                    .incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        WebhookEndpoint endpoint = new WebhookEndpoint(
                "whk_doze",
                URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook"),
                Set.of(EventType.AGENT_CREATED),
                Optional.empty(),
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                Instant.now().minusSeconds(60));
        WebhookDirectory directory = new WebhookDirectory() {
            @Override
            public List<WebhookEndpoint> activeEndpoints() {
                return List.of(endpoint);
            }

            @Override
            public void disable(String endpointId, Instant at) {}

            @Override
            public void recordDelivery(WebhookDelivery delivery) {}
        };
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-" + topic);
        java.util.Random random = new java.util.Random(11);
        List<Long> deliveredAfterMillis = new ArrayList<>();
        int events = 10;
        try (KafkaProducer<String, byte[]> producer =
                        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
                WebhookWorker worker = new WebhookWorker(
                        infra.kafkaBootstrap(),
                        "it-" + topic,
                        topic,
                        GroupWaits.fetching(Duration.ofMinutes(1)),
                        directory,
                        WebhookOptions.builder().allowPrivateTargets(true).build(),
                        new WebhookCounters(),
                        Clock.systemUTC(),
                        letters -> {})) {
            producer.initTransactions();
            worker.start();
            for (int i = 0; i < events; i++) {
                if (i % 2 == 0) {
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (!worker.isDozing() && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(worker.isDozing())
                            .as("dozing before event %s", i)
                            .isTrue();
                } else {
                    Thread.sleep(900 + random.nextInt(200)); // around the doze's start: pausing races the event
                }
                long sent = System.nanoTime();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(
                        topic,
                        "agt_" + i,
                        StreamEventCodec.encode(new StreamEvent.Draft(
                                EventType.AGENT_CREATED,
                                Instant.now(),
                                Map.of("agentId", "agt_" + i),
                                Optional.of("agt_" + i),
                                Optional.of("olga")))));
                producer.commitTransaction();
                long deadline = sent + Duration.ofSeconds(20).toNanos();
                while (received.size() < i + 1 && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                assertThat(received)
                        .as("event %s delivered while the worker dozed", i)
                        .hasSize(i + 1);
                deliveredAfterMillis.add((System.nanoTime() - sent) / 1_000_000);
            }
            Thread.sleep(1_000); // an event handed over by the alarm and read again by the worker would arrive now
        } finally {
            receiver.stop(0);
        }
        assertThat(received).hasSize(events);
        assertThat(received.values()).as("each event delivered once").allMatch(n -> n.get() == 1);
        assertThat(deliveredAfterMillis)
                .as("ms from each commit to its delivery (the batch wait is a minute)")
                .allMatch(ms -> ms < 10_000);
    }
}
