package dev.warden.sinks.ssf;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import dev.warden.runtime.consumer.BatchTransaction;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.DeadLetter;
import dev.warden.runtime.consumer.DeadLetters;
import dev.warden.runtime.consumer.SinkOffsets;
import dev.warden.runtime.db.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Feeds the Shared Signals streams from {@code warden.events}, exactly once: each event's signals
 * ({@link SignalMapper}) become one signed Security Event Token per stream that takes them, queued in
 * {@code ssf_outbox} in the same transaction as the next offset (and {@code ON CONFLICT DO NOTHING} on the stable
 * {@code jti} as a second guard). Push delivery ({@link SignalPusher}) and polling read the outbox, so a receiver
 * that is away finds its backlog when it returns. Audit batches carry no signal and are skipped unread. Tokens
 * older than the retention are dropped. A revoked agent's streams end with it, in the same transaction: a receiver
 * whose credentials its owner revoked gets nothing more, at the endpoint it had set either.
 */
public final class SignalFeeder implements BatchWriter {
    /** The name this worker stores its offsets and dead letters under. */
    public static final String SINK = SinkNames.SHARED_SIGNALS;

    private static final Logger LOG = Logger.getLogger(SignalFeeder.class.getName());

    private final Database db;
    private final String topic;
    private final Supplier<String> issuer;
    private final SetSigner signer;
    private final SignalStreams streams;
    private final Duration retention;
    private final InstantSource clock;
    private final Runnable queuedSome;
    private Instant nextExpiry = Instant.MIN;

    /** @param queuedSome called after a batch that queued tokens is durable (wakes the pusher) */
    public SignalFeeder(
            Database db,
            SignalStreams streams,
            String topic,
            Supplier<String> issuer,
            SetSigner signer,
            Duration retention,
            InstantSource clock,
            Runnable queuedSome) {
        this.queuedSome = queuedSome;
        this.db = db;
        this.streams = streams;
        this.topic = topic;
        this.issuer = issuer;
        this.signer = signer;
        this.retention = retention;
        this.clock = clock;
    }

    @Override
    public Map<TopicPartition, Long> storedOffsets(Collection<TopicPartition> partitions) {
        return SinkOffsets.read(db.dataSource(), SINK, topic, partitions);
    }

    @Override
    public WriteResult write(List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> nextOffsets) {
        List<DeadLetter> undecodable = new ArrayList<>();
        List<Signal> signals = new ArrayList<>();
        List<String> revokedAgents = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            if (AuditBatch.isBatch(record.headers())) {
                continue;
            }
            // Most events carry no signal (every token issued to an agent is an auth.signin): their type decides
            // that, read without decoding the rest. A value whose type cannot be read is decoded for the reason.
            Optional<EventType> type = StreamEventCodec.peekType(record.value());
            if (type.isPresent() && !SignalMapper.mayMap(type.get()) && type.get() != EventType.AGENT_REVOKED) {
                continue;
            }
            try {
                StreamEvent event = StreamEventCodec.decodeDraft(record.value()).at(record.offset());
                if (SignalMapper.mayMap(event.type())) {
                    signals.addAll(SignalMapper.signals(event));
                }
                if (event.type() == EventType.AGENT_REVOKED) {
                    event.agentId().ifPresent(revokedAgents::add);
                }
            } catch (IllegalArgumentException e) {
                undecodable.add(DeadLetter.of(SINK, record, "undecodable stream event: " + e.getMessage()));
            }
        }
        return BatchTransaction.write(db.dataSource(), SINK, "security events", nextOffsets, (conn, deadLetters) -> {
            deadLetters.addAll(undecodable);
            long queued = signals.isEmpty() ? 0 : queue(conn, signals);
            if (!revokedAgents.isEmpty()) {
                SignalStreams.deleteManagedByAgents(conn, revokedAgents);
            }
            return queued;
        });
    }

    /** One signed token per signal and stream that takes it; the number newly queued. */
    private long queue(Connection conn, List<Signal> signals) throws SQLException {
        List<SignalStreams.Feedable> feedable = SignalStreams.feedable(conn);
        if (feedable.isEmpty()) {
            return 0;
        }
        String iss = issuer.get();
        Instant now = clock.instant();
        long queued = 0;
        for (Signal signal : signals) {
            for (SignalStreams.Feedable stream : feedable) {
                if (!stream.accepts(signal)) {
                    continue;
                }
                String jti = SecurityEventTokens.jti(stream.id(), signal);
                String token = signer.sign(SecurityEventTokens.claims(
                        iss,
                        stream.audience(),
                        jti,
                        now,
                        signal.subject().asSubId(iss),
                        signal.type(),
                        signal.members()));
                queued += SignalStreams.enqueue(conn, stream.id(), jti, token, now);
            }
        }
        return queued;
    }

    @Override
    public void deadLetter(DeadLetter letter, Map<TopicPartition, Long> nextOffsets) {
        DeadLetters.storeWithOffsets(db.dataSource(), SINK, letter, nextOffsets);
    }

    @Override
    public void afterCommit(WriteResult result) {
        if (result.written() > 0) {
            queuedSome.run();
        }
        Instant now = clock.instant();
        if (now.isBefore(nextExpiry)) {
            return;
        }
        nextExpiry = now.plus(Duration.ofMinutes(10));
        try {
            int dropped = streams.expire(now.minus(retention));
            if (dropped > 0) {
                LOG.warning("dropped " + dropped + " security event tokens no receiver took within the retention");
            }
        } catch (RuntimeException e) {
            LOG.warning("could not expire old security event tokens: " + e.getMessage());
        }
    }
}
