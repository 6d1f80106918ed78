package dev.warden.pipeline.anomaly;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.AuditSerdes;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Anomaly detection over {@code warden.audit}, per agent, in event time by the minute:
 * <ul>
 *   <li>{@code call_rate_spike}: a minute's calls reach {@code spikeFactor} times the agent's trailing
 *       baseline (its average calls per minute: a plain average over its first hour, then an exponentially
 *       weighted average over about an hour; idle minutes count as zero) and at least {@code spikeMinCalls},
 *       once the agent has {@code warmupMinutes} of history;</li>
 *   <li>{@code denial_burst}: a minute has at least {@code burstMinDenials} denied or rate-limited calls
 *       making up at least {@code burstMinRatio} of its calls.</li>
 * </ul>
 * Each kind fires at most once per agent per minute, as {@code anomaly.detected} on {@code warden.events}
 * with {@code {agentId, kind, severity, evidence}}; severity is {@code high} at twice the threshold.
 */
public final class AnomalyTopology {
    static final String STORE = "anomaly-rates";
    private static final double ALPHA = 1.0 / 60;

    private AnomalyTopology() {}

    /** Adds the topology to {@code builder}. */
    public static void build(StreamsBuilder builder, String auditTopic, String eventsTopic, AnomalyRules rules) {
        builder.addStateStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(STORE), Serdes.String(), Serdes.String()));
        builder.stream(
                        auditTopic,
                        Consumed.with(Serdes.String(), AuditSerdes.entries())
                                .withTimestampExtractor(AuditSerdes.decisionTime()))
                .filter((agent, entry) -> entry == null || !entry.isAdministrative())
                .process(() -> new Detector(rules), STORE)
                .to(eventsTopic, Produced.with(Serdes.String(), StreamEventSerdes.drafts()));
    }

    /** Per-agent state: current minute's counts, baseline, first minute seen, what already fired this minute. */
    record Rate(
            long minute, long calls, long denied, double baseline, long firstMinute, boolean spiked, boolean bursted) {
        static Rate parse(String s) {
            String[] f = s.split(",");
            return new Rate(
                    Long.parseLong(f[0]),
                    Long.parseLong(f[1]),
                    Long.parseLong(f[2]),
                    Double.parseDouble(f[3]),
                    Long.parseLong(f[4]),
                    Boolean.parseBoolean(f[5]),
                    Boolean.parseBoolean(f[6]));
        }

        String format() {
            return minute + "," + calls + "," + denied + "," + baseline + "," + firstMinute + "," + spiked + ","
                    + bursted;
        }

        /** The state as of {@code now}: closed minutes folded into the baseline, idle ones as zero calls. */
        Rate rollTo(long now) {
            if (now <= minute) {
                return this;
            }
            long closed = minute - firstMinute;
            double b = fold(baseline, closed, calls);
            long idle = Math.min(now - minute - 1, 600);
            for (long i = 1; i <= idle; i++) {
                b = fold(b, closed + i, 0);
            }
            return new Rate(now, 0, 0, b, firstMinute, false, false);
        }

        /** Adds one closed minute: a plain average over the first hour, then an hourly moving average. */
        private static double fold(double baseline, long closedBefore, long calls) {
            return closedBefore < 60
                    ? (baseline * closedBefore + calls) / (closedBefore + 1)
                    : baseline * (1 - ALPHA) + calls * ALPHA;
        }
    }

    static final class Detector implements Processor<String, AuditEntry, String, StreamEvent.Draft> {
        private final AnomalyRules rules;
        private ProcessorContext<String, StreamEvent.Draft> context;
        private KeyValueStore<String, String> rates;

        Detector(AnomalyRules rules) {
            this.rules = rules;
        }

        @Override
        public void init(ProcessorContext<String, StreamEvent.Draft> context) {
            this.context = context;
            this.rates = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, AuditEntry> record) {
            AuditEntry entry = record.value();
            if (entry == null) {
                return;
            }
            String agent = entry.agentId();
            long minute = entry.timestamp().getEpochSecond() / 60;
            String stored = rates.get(agent);
            Rate rate = stored == null
                    ? new Rate(minute, 0, 0, 0, minute, false, false)
                    : Rate.parse(stored).rollTo(minute);
            if (minute < rate.minute()) {
                return;
            }
            boolean denied = entry.result() != AuditResult.ALLOWED;
            rate = new Rate(
                    rate.minute(),
                    rate.calls() + 1,
                    rate.denied() + (denied ? 1 : 0),
                    rate.baseline(),
                    rate.firstMinute(),
                    rate.spiked(),
                    rate.bursted());
            if (!rate.spiked() && isSpike(rate)) {
                double threshold = Math.max(rules.spikeMinCalls(), rules.spikeFactor() * rate.baseline());
                emit(
                        record,
                        entry,
                        "call_rate_spike",
                        rate.calls() >= 2 * threshold,
                        Map.of(
                                "minute",
                                Instant.ofEpochSecond(rate.minute() * 60).toString(),
                                "calls",
                                rate.calls(),
                                "baselinePerMinute",
                                Math.round(rate.baseline() * 100) / 100.0));
                rate = new Rate(
                        rate.minute(),
                        rate.calls(),
                        rate.denied(),
                        rate.baseline(),
                        rate.firstMinute(),
                        true,
                        rate.bursted());
            }
            if (!rate.bursted() && isBurst(rate)) {
                emit(
                        record,
                        entry,
                        "denial_burst",
                        rate.denied() >= 2 * rules.burstMinDenials(),
                        Map.of(
                                "minute",
                                Instant.ofEpochSecond(rate.minute() * 60).toString(),
                                "calls",
                                rate.calls(),
                                "denied",
                                rate.denied()));
                rate = new Rate(
                        rate.minute(),
                        rate.calls(),
                        rate.denied(),
                        rate.baseline(),
                        rate.firstMinute(),
                        rate.spiked(),
                        true);
            }
            rates.put(agent, rate.format());
        }

        private boolean isSpike(Rate rate) {
            return rate.minute() - rate.firstMinute() >= rules.warmupMinutes()
                    && rate.calls() >= rules.spikeMinCalls()
                    && rate.calls() >= rules.spikeFactor() * rate.baseline();
        }

        private boolean isBurst(Rate rate) {
            return rate.denied() >= rules.burstMinDenials() && rate.denied() >= rules.burstMinRatio() * rate.calls();
        }

        private void emit(
                Record<String, AuditEntry> record,
                AuditEntry entry,
                String kind,
                boolean high,
                Map<String, Object> evidence) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("agentId", entry.agentId());
            data.put("kind", kind);
            data.put("severity", high ? "high" : "medium");
            data.put("evidence", evidence);
            context.forward(new Record<>(
                    entry.agentId(),
                    new StreamEvent.Draft(
                            EventType.ANOMALY_DETECTED,
                            entry.timestamp(),
                            data,
                            Optional.of(entry.agentId()),
                            entry.userId()),
                    record.timestamp()));
            // Until its transaction commits, this event holds every later one on warden.events back from committed
            // readers: commit in this loop turn, not at the interval (D193).
            context.commit();
        }
    }
}
