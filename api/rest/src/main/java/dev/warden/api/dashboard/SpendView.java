package dev.warden.api.dashboard;

import dev.warden.runtime.consumer.ConsumerLoop;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * This instance's copy of each budgeted agent's spend, as the pipeline publishes it on {@code warden.budget.spend}
 * (compacted; read from its start and kept current; a tombstone forgets an agent). Thread-safe.
 */
public final class SpendView implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SpendView.class.getName());

    /**
     * An agent's spend in the budget period its latest cost (or its budget's last change) fell in.
     *
     * @param periodKey {@code 2026-11-28} for a daily budget, {@code 2026-11} for a monthly one
     */
    public record Spend(BigDecimal spentUsd, BigDecimal maxCostUsd, String period, String periodKey) {
        /** Parses {@code <spentUsd>|<maxCostUsd>|<period>|<periodKey>}; empty for anything else. */
        static Optional<Spend> parse(String value) {
            String[] f = value.split("\\|", -1);
            if (f.length != 4) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Spend(new BigDecimal(f[0]), new BigDecimal(f[1]), f[2], f[3]));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }

    private final Map<String, Spend> spend = new ConcurrentHashMap<>();
    private final ConsumerLoop<String, String> loop;

    public SpendView(String bootstrap, String topic, String clientId) {
        this.loop = CompactedTopics.follow(
                "warden-spend-view",
                bootstrap,
                clientId,
                List.of(topic),
                new StringDeserializer(),
                records -> records.forEach(this::apply));
    }

    /** Starts following the topic from its beginning. */
    public void start() {
        loop.start();
    }

    /** The agent's latest spend, if it has a budget. */
    public Optional<Spend> of(String agentId) {
        return Optional.ofNullable(spend.get(agentId));
    }

    /** The state of this consumer's loop, for health. */
    public ConsumerLoop.Health health() {
        return loop.health();
    }

    @Override
    public void close() {
        loop.close();
    }

    private void apply(ConsumerRecord<String, String> record) {
        if (record.key() == null) {
            return;
        }
        if (record.value() == null) {
            spend.remove(record.key());
            return;
        }
        Spend.parse(record.value())
                .ifPresentOrElse(s -> spend.put(record.key(), s), () -> LOG.fine("skipping spend of " + record.key()));
    }
}
