package dev.warden.pipeline.contract;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Where an {@link AuditBatch}'s entries are stored: each entry's {@code audit_events} key (its timestamp in
 * milliseconds and its id), in the batch's order, in the header {@value #HEADER} of the batch record. The audit
 * writer adds it (it stored those rows in the transaction that publishes the batch); the stream store then keeps the
 * batch as these keys instead of a second copy of its entries, and replay reads the entries from {@code audit_events}.
 * Binary:
 * <pre>
 *   "WAR1" | int count | count × (long timestamp millis | int idLength | id (UTF-8))
 * </pre>
 */
public final class AuditBatchRows {
    /** The header that carries a batch's row keys. */
    public static final String HEADER = "warden-audit-rows";

    private static final byte[] MAGIC = "WAR1".getBytes(StandardCharsets.US_ASCII);

    private AuditBatchRows() {}

    /** One entry's row in {@code audit_events}: its primary key {@code (ts, id)}. */
    public record Key(long timestampMillis, String id) {}

    /** The header holding {@code keys}. */
    public static Header header(List<Key> keys) {
        byte[] value = encode(keys);
        return new Header() {
            @Override
            public String key() {
                return HEADER;
            }

            @Override
            public byte[] value() {
                return value;
            }
        };
    }

    /** The keys a record with {@code headers} carries; empty when it carries none or they do not decode. */
    public static Optional<List<Key>> of(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(HEADER);
        if (header == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(decode(header.value()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The binary form of {@code keys}. */
    public static byte[] encode(List<Key> keys) {
        List<byte[]> ids = new ArrayList<>(keys.size());
        int size = MAGIC.length + 4;
        for (Key key : keys) {
            byte[] id = key.id().getBytes(StandardCharsets.UTF_8);
            ids.add(id);
            size += 12 + id.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(MAGIC).putInt(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.putLong(keys.get(i).timestampMillis()).putInt(ids.get(i).length).put(ids.get(i));
        }
        return out.array();
    }

    /** The keys of {@code value}; {@link IllegalArgumentException} when it is not their binary form. */
    public static List<Key> decode(byte[] value) {
        if (value == null || value.length < MAGIC.length + 4) {
            throw new IllegalArgumentException("not audit row keys: too short");
        }
        ByteBuffer in = ByteBuffer.wrap(value);
        for (byte b : MAGIC) {
            if (in.get() != b) {
                throw new IllegalArgumentException("not audit row keys: wrong magic");
            }
        }
        try {
            int count = in.getInt();
            if (count < 1 || count > AuditBatch.MAX_ENTRIES) {
                throw new IllegalArgumentException("audit row keys of " + count + " entries");
            }
            List<Key> keys = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long timestamp = in.getLong();
                int length = in.getInt();
                if (length < 1 || length > in.remaining()) {
                    throw new IllegalArgumentException("audit row key id of " + length + " bytes");
                }
                byte[] id = new byte[length];
                in.get(id);
                keys.add(new Key(timestamp, new String(id, StandardCharsets.UTF_8)));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("audit row keys have " + in.remaining() + " bytes after them");
            }
            return keys;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("audit row keys are truncated");
        }
    }
}
