package dev.warden.api.kafka;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Factories for the Kafka clients Warden uses, with the settings its guarantees depend on. */
public final class KafkaClients {
    private KafkaClients() {}

    /**
     * A durable producer: {@code acks=all}, idempotent (no duplicates or reordering from retries), bounded
     * blocking so an unreachable broker fails a send within seconds instead of hanging a request: {@code send}
     * blocks at most 5 s for metadata and buffer space, and a sent record is acknowledged or failed within 5 s.
     */
    public static KafkaProducer<String, byte[]> durableProducer(String bootstrap, String clientId) {
        return new KafkaProducer<>(durable(bootstrap, clientId), new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * A {@link #durableProducer} whose records wait to be sent until its owner calls {@code flush()}: each group of
     * records sent together goes in one request ({@code linger.ms} longer than any group takes to send).
     */
    public static KafkaProducer<String, byte[]> groupProducer(String bootstrap, String clientId) {
        Properties p = durable(bootstrap, clientId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1_000);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    private static Properties durable(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5_000);
        return p;
    }

    /** An admin client with short timeouts, for topic management and health checks. */
    public static Admin admin(String bootstrap, String clientId) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG,
                clientId,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000));
    }
}
