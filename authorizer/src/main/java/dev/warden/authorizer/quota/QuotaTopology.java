package dev.warden.authorizer.quota;

import dev.warden.pipeline.contract.TraceHeaders;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The quota owner: a Kafka Streams topology that keeps every per-grant hourly counter and answers consume
 * requests. Requests are keyed by the root agent of their grant chain, so all counters a request touches
 * live in one task and are updated by one thread: a request is granted only if every counter is below its
 * limit, and then all are incremented together. Counters never overshoot. The store is changelog-backed, so
 * counts survive restarts; run the application with {@code exactly_once_v2} so a crash never counts a call
 * twice. Counters of hours older than the previous one are deleted.
 */
public final class QuotaTopology {
    /** Name of the counter store. */
    public static final String STORE = "quota-counters";

    private QuotaTopology() {}

    /** Adds the topology to {@code builder}: {@code requestsTopic} in, {@code repliesTopic} out; no tracing. */
    public static void build(StreamsBuilder builder, String requestsTopic, String repliesTopic) {
        build(builder, requestsTopic, repliesTopic, OpenTelemetry.noop().getTracer("warden"));
    }

    /**
     * As {@link #build(StreamsBuilder, String, String)}, with a span {@code quota decide} for each request that
     * carries a trace context (its reply carries the same context back).
     */
    public static void build(StreamsBuilder builder, String requestsTopic, String repliesTopic, Tracer tracer) {
        builder.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.Long()));
        builder.stream(requestsTopic, Consumed.with(Serdes.String(), QuotaSerdes.requests()))
                .process(() -> new CounterProcessor(tracer), STORE)
                .to(repliesTopic, Produced.with(Serdes.String(), QuotaSerdes.replies()));
    }

    /** The store key of a counter in an hour: {@code <hour>|<counterKey>}. */
    static String storeKey(long hour, String counterKey) {
        return hour + "|" + counterKey;
    }

    static final class CounterProcessor implements Processor<String, QuotaRequest, String, QuotaReply> {
        private final Tracer tracer;
        private KeyValueStore<String, Long> counters;
        private ProcessorContext<String, QuotaReply> context;
        private long latestHour = Long.MIN_VALUE;

        CounterProcessor(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public void init(ProcessorContext<String, QuotaReply> context) {
            this.context = context;
            this.counters = context.getStateStore(STORE);
            context.schedule(Duration.ofMinutes(5), PunctuationType.WALL_CLOCK_TIME, t -> evictOldHours());
        }

        @Override
        public void process(Record<String, QuotaRequest> record) {
            QuotaRequest request = record.value();
            if (request == null) {
                return;
            }
            latestHour = Math.max(latestHour, request.hour());
            Span span = TraceHeaders.span(tracer, "quota decide", SpanKind.CONSUMER, record.headers());
            try {
                QuotaReply reply = decide(request);
                span.setAttribute("warden.quota.granted", reply.granted());
                context.forward(record.withKey(request.replyTo()).withValue(reply));
                askForCommitAtTheEndOfThePoll();
            } finally {
                span.end();
            }
        }

        /**
         * A decision waits for this reply, which its reader sees only once the transaction commits. Left to the
         * commit interval, a reply made less than an interval after the thread's last commit check waited for the
         * next loop turn, a whole {@code poll.ms} later, as nothing else ended that poll while its caller waited.
         * The reply to the last request of a poll asks for its commit, which Streams makes in this loop turn: one
         * transaction per poll, holding every reply the poll brought (D193). Asked per reply, each reply was a
         * transaction of its own.
         */
        private void askForCommitAtTheEndOfThePoll() {
            boolean lastOfItsPoll = context.recordMetadata()
                    .map(m -> PolledBatchEnds.isLastPolled(new TopicPartition(m.topic(), m.partition()), m.offset()))
                    .orElse(true);
            if (lastOfItsPoll) {
                context.commit();
            }
        }

        private QuotaReply decide(QuotaRequest request) {
            List<KeyValue<String, Long>> next = new ArrayList<>(request.steps().size());
            long remaining = Long.MAX_VALUE;
            for (QuotaRequest.Step step : request.steps()) {
                String key = storeKey(request.hour(), step.counterKey());
                Long stored = counters.get(key);
                long used = stored == null ? 0 : stored;
                if (used >= step.limit()) {
                    return new QuotaReply(request.requestId(), false, request.hour(), step.counterKey(), 0);
                }
                next.add(KeyValue.pair(key, used + 1));
                remaining = Math.min(remaining, step.limit() - used - 1);
            }
            counters.putAll(next);
            return new QuotaReply(request.requestId(), true, request.hour(), "", remaining);
        }

        private void evictOldHours() {
            if (latestHour == Long.MIN_VALUE) {
                return;
            }
            List<String> stale = new ArrayList<>();
            try (KeyValueIterator<String, Long> all = counters.all()) {
                while (all.hasNext()) {
                    String key = all.next().key;
                    long hour = Long.parseLong(key.substring(0, key.indexOf('|')));
                    if (hour < latestHour - 1) {
                        stale.add(key);
                    }
                }
            }
            stale.forEach(counters::delete);
        }
    }
}
