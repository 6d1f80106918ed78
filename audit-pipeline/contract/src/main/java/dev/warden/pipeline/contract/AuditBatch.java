package dev.warden.pipeline.contract;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Many {@code audit} events in one record of {@code warden.events}: the audit writer publishes the entries of
 * {@code warden.audit} it stores as they are, in their partition's order, a batch at a time, instead of one event
 * record per decision (which cost the broker, the stream store and every reader a record each). A batch is marked
 * by the header {@value #HEADER}; its value is binary, not JSON:
 * <pre>
 *   "WAB1" | int count | count × (long timestamp | int traceLen | traceparent (UTF-8) | int length | entry)
 * </pre>
 * where each entry is the audit record's value unchanged (an {@link AuditEntry} as {@link AuditEntryCodec} wrote
 * it), its timestamp the audit record's, its traceparent the one the audit record carried (empty when none).
 * Entries are decoded one at a time by their readers, so an undecodable entry costs only itself.
 *
 * <p>The {@code i}-th entry of the batch at offset {@code R} is the event {@link EventIds#batchEntry(long, int)
 * R.i}; a batch holds at most {@value #MAX_ENTRIES} entries and about {@value #MAX_BYTES} bytes.
 */
public final class AuditBatch {
    /** The header that marks a batch record (value: {@code 1}, the format's version). */
    public static final String HEADER = "warden-audit-batch";
    /** Most entries in one batch (below {@link EventIds#MAX_INDEX}). */
    public static final int MAX_ENTRIES = 1000;
    /** A batch is closed once its entries reach this many bytes (records stay well under Kafka's 1 MiB). */
    public static final int MAX_BYTES = 256 * 1024;

    private static final byte[] MAGIC = "WAB1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VERSION = {1};
    private static final byte[] NONE = new byte[0];

    private AuditBatch() {}

    /**
     * One audit entry in a batch.
     *
     * @param value       the audit record's value, not to be modified
     * @param traceparent the W3C trace context the audit record carried, or empty
     */
    public record Entry(long timestamp, String traceparent, byte[] value) {
        /** The bytes this entry takes in a batch. */
        public int encodedSize() {
            return 16 + traceparent.length() + value.length;
        }
    }

    /** True when a record with {@code headers} is a batch. */
    public static boolean isBatch(Headers headers) {
        return headers != null && headers.lastHeader(HEADER) != null;
    }

    /** The header to mark a batch record with. */
    public static Header header() {
        return new Header() {
            @Override
            public String key() {
                return HEADER;
            }

            @Override
            public byte[] value() {
                return VERSION.clone();
            }
        };
    }

    /** The value of a batch of {@code entries} (at most {@link #MAX_ENTRIES}). */
    public static byte[] encode(List<Entry> entries) {
        if (entries.isEmpty() || entries.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException("a batch holds 1 to " + MAX_ENTRIES + " entries, not " + entries.size());
        }
        int size = MAGIC.length + 4;
        for (Entry e : entries) {
            size += e.encodedSize();
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(MAGIC).putInt(entries.size());
        for (Entry e : entries) {
            byte[] trace = e.traceparent().getBytes(StandardCharsets.US_ASCII);
            out.putLong(e.timestamp())
                    .putInt(trace.length)
                    .put(trace)
                    .putInt(e.value().length)
                    .put(e.value());
        }
        return out.array();
    }

    /** The entries of a batch's value; {@link IllegalArgumentException} when it is not a well-formed batch. */
    public static List<Entry> decode(byte[] value) {
        return read(value, true);
    }

    /**
     * The traceparent of each entry of a batch's value (empty where an entry carries none), without copying the
     * entries themselves; {@link IllegalArgumentException} when it is not a well-formed batch.
     */
    public static List<String> traceparents(byte[] value) {
        return read(value, false).stream().map(Entry::traceparent).toList();
    }

    /**
     * The newest entry's timestamp in a batch's value, without copying the entries; {@link IllegalArgumentException}
     * when it is not a well-formed batch.
     */
    public static long newestTimestamp(byte[] value) {
        return summary(value).newestTimestamp();
    }

    /** How many entries a batch holds and its newest entry's timestamp. */
    public record Summary(int count, long newestTimestamp) {}

    /**
     * The {@link Summary} of a batch's value, without copying the entries; {@link IllegalArgumentException} when it
     * is not a well-formed batch.
     */
    public static Summary summary(byte[] value) {
        List<Entry> entries = read(value, false);
        return new Summary(
                entries.size(),
                entries.stream().mapToLong(Entry::timestamp).max().orElseThrow());
    }

    /** The entries of {@code value}, each with its bytes when {@code withValues}, else with none. */
    private static List<Entry> read(byte[] value, boolean withValues) {
        if (value == null || value.length < MAGIC.length + 4) {
            throw new IllegalArgumentException("not an audit batch: too short");
        }
        ByteBuffer in = ByteBuffer.wrap(value);
        for (byte b : MAGIC) {
            if (in.get() != b) {
                throw new IllegalArgumentException("not an audit batch: wrong magic");
            }
        }
        try {
            int count = in.getInt();
            if (count < 1 || count > MAX_ENTRIES) {
                throw new IllegalArgumentException("audit batch of " + count + " entries");
            }
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long timestamp = in.getLong();
                String trace = new String(slice(in, true), StandardCharsets.US_ASCII);
                entries.add(new Entry(timestamp, trace, slice(in, withValues)));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("audit batch has " + in.remaining() + " bytes after its entries");
            }
            return entries;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("audit batch is truncated");
        }
    }

    /**
     * The {@code audit} event of a batch entry's value, with its id: {@code agentId} the agent, {@code userId} its
     * owner when it has one, {@code data = {"entry": <the audit entry as GET /audit shows it>}} (parameters were
     * redacted when the entry was made, so no secret reaches the event). The data is only ever written as JSON.
     *
     * @throws IllegalArgumentException when the value is not an audit entry
     */
    public static StreamEvent event(byte[] entryValue, String id) {
        return event(AuditEntryCodec.decode(entryValue), id);
    }

    /** The {@code audit} event of {@code entry}, with its id (as {@link #event(byte[], String)}). */
    public static StreamEvent event(AuditEntry entry, String id) {
        return new StreamEvent(
                id,
                EventType.AUDIT,
                entry.timestamp(),
                Map.of("entry", AuditEntryCodec.asJsonValue(entry)),
                Optional.of(entry.agentId()),
                entry.userId());
    }

    /** The next length-prefixed bytes of {@code in}: a copy when {@code copy}, else skipped (none). */
    private static byte[] slice(ByteBuffer in, boolean copy) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("audit batch entry of " + length + " bytes overruns the batch");
        }
        if (!copy) {
            in.position(in.position() + length);
            return NONE;
        }
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }
}
