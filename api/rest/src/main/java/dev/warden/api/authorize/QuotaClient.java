package dev.warden.api.authorize;

import dev.warden.api.errors.UnavailableException;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.quota.QuotaReply;
import dev.warden.authorizer.quota.QuotaRequest;
import dev.warden.authorizer.quota.QuotaSerdes;
import dev.warden.pipeline.contract.TraceHeaders;
import dev.warden.runtime.consumer.ConsumerLoop;
import io.opentelemetry.context.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Asks the quota owner (the quota topology, possibly in another process) to consume hourly budgets: a
 * request/reply over {@code warden.quota.requests} and {@code warden.quota.replies}. Replies are keyed by
 * this instance's id, so this client reads only the reply partition that id hashes to. Thread-safe.
 */
public final class QuotaClient implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(QuotaClient.class.getName());

    private final KafkaProducer<String, QuotaRequest> producer;
    private final String requestsTopic;
    private final String instanceId;
    private final Duration timeout;
    private final Map<String, CompletableFuture<QuotaReply>> pending = new ConcurrentHashMap<>();
    private final ConsumerLoop<String, QuotaReply> replies;

    public QuotaClient(
            String bootstrap, String requestsTopic, String repliesTopic, String instanceId, Duration timeout) {
        this.requestsTopic = requestsTopic;
        this.instanceId = instanceId;
        this.timeout = timeout;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, instanceId + "-quota");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        this.producer = new KafkaProducer<>(
                p, new StringSerializer(), QuotaSerdes.requests().serializer());
        // A reader outside any group (D192, D194): committed replies only, the broker answers a fetch as soon as a
        // reply is there and holds it 10 s otherwise (an idle instance asks once every 10 s, where 500 ms made it
        // twice a second), and close does not wait for the held fetch. The 10 s wait was measured against 500 ms on
        // quota-limited decisions, under load and one at a time, and cost nothing (docs/benchmarks-notebook.md).
        KafkaConsumer<String, QuotaReply> consumer = new KafkaConsumer<>(
                ConsumerLoop.readerSettings(bootstrap, instanceId + "-quota-replies"),
                new StringDeserializer(),
                QuotaSerdes.replies().deserializer());
        int partitions = producer.partitionsFor(repliesTopic).size();
        TopicPartition mine = new TopicPartition(
                repliesTopic,
                Utils.toPositive(Utils.murmur2(instanceId.getBytes(StandardCharsets.UTF_8))) % partitions);
        // The loop has nothing to do between replies: its poll returns when one comes, and close wakes it.
        this.replies = ConsumerLoop.reader("warden-quota-replies", consumer, new Replies(mine));
        replies.start();
        awaitPositioned();
    }

    /**
     * Consumes one call from every step's counter for {@code hour}, all or nothing.
     *
     * @param partitionKey the key that places every counter of the chain with one owner (the chain's
     *                     topmost constrained counter)
     * @throws UnavailableException when the quota owner does not answer in time
     */
    public QuotaReply consume(String partitionKey, long hour, List<QuotaRequest.Step> steps) {
        String requestId = Ids.mint("qr");
        CompletableFuture<QuotaReply> reply = new CompletableFuture<>();
        pending.put(requestId, reply);
        try {
            ProducerRecord<String, QuotaRequest> record = new ProducerRecord<>(
                    requestsTopic, partitionKey, new QuotaRequest(requestId, instanceId, hour, steps));
            TraceHeaders.inject(Context.current(), record.headers());
            producer.send(record);
            return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.log(Level.WARNING, "quota owner did not answer: " + e);
            throw unavailable();
        } finally {
            pending.remove(requestId);
        }
    }

    /** Reads this instance's reply partition from its end and completes the waiting requests. */
    private final class Replies implements ConsumerLoop.Handler<String, QuotaReply> {
        private final TopicPartition partition;

        Replies(TopicPartition partition) {
            this.partition = partition;
        }

        @Override
        public void start(Consumer<String, QuotaReply> consumer) {
            consumer.assign(List.of(partition));
            consumer.seekToEnd(List.of(partition));
            consumer.position(partition);
        }

        @Override
        public void handle(ConsumerRecords<String, QuotaReply> records, Consumer<String, QuotaReply> consumer) {
            for (ConsumerRecord<String, QuotaReply> record : records) {
                QuotaReply reply = record.value();
                if (reply != null && instanceId.equals(record.key())) {
                    CompletableFuture<QuotaReply> waiting = pending.get(reply.requestId());
                    if (waiting != null) {
                        waiting.complete(reply);
                    }
                }
            }
        }
    }

    private void awaitPositioned() {
        try {
            if (!replies.awaitStarted(Duration.ofSeconds(30))) {
                throw new IllegalStateException("quota reply consumer could not reach Kafka");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static UnavailableException unavailable() {
        return new UnavailableException(
                "the quota service is unavailable; no decision was made", Duration.ofSeconds(1));
    }

    /** The state of this consumer's loop, for health. */
    public ConsumerLoop.Health health() {
        return replies.health();
    }

    @Override
    public void close() {
        replies.close();
        producer.close(Duration.ofSeconds(5));
    }
}
