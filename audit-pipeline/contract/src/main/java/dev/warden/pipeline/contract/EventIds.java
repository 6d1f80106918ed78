package dev.warden.pipeline.contract;

import java.util.Optional;

/**
 * Event ids and the positions they stand for. An event's id comes from where it sits in the single-partition
 * {@code warden.events} topic: an ordinary event at offset {@code R} is {@code "R"}; the {@code i}-th entry of an
 * {@link AuditBatch} at offset {@code R} is {@code "R.i"}. Ids therefore follow the topic's order, and within a
 * batch its entries' order.
 *
 * <p>A position is the id as one comparable {@code long}: {@code R << 10 | i} for a batch entry and
 * {@code R << 10 | 1023} for an ordinary event, so the position of {@code "R"} is also "after everything at
 * offset R". Ids written before batches existed are plain offsets and keep meaning the same place.
 */
public final class EventIds {
    /** Bits of a position that hold the index within a batch. */
    public static final int INDEX_BITS = 10;
    /** The index slot of an ordinary event (one past the largest index a batch entry can have). */
    public static final int MAX_INDEX = (1 << INDEX_BITS) - 1;
    /** The position before every event. */
    public static final long BEFORE_ALL = -1;
    /** The largest offset a position holds. */
    private static final long MAX_OFFSET = Long.MAX_VALUE >> INDEX_BITS;

    private EventIds() {}

    /** The position of the ordinary event at {@code offset}, and of everything at that offset. */
    public static long record(long offset) {
        return offset < 0 ? BEFORE_ALL : offset << INDEX_BITS | MAX_INDEX;
    }

    /** The position of the {@code index}-th entry of the batch at {@code offset}. */
    public static long batchEntry(long offset, int index) {
        if (index < 0 || index >= MAX_INDEX) {
            throw new IllegalArgumentException("batch index " + index + " out of range");
        }
        return offset << INDEX_BITS | index;
    }

    /** The offset of the record that holds the event at {@code position}. */
    public static long offset(long position) {
        return position >> INDEX_BITS;
    }

    /** The id of the event at {@code position}. */
    public static String id(long position) {
        int index = (int) (position & MAX_INDEX);
        long offset = offset(position);
        return index == MAX_INDEX ? Long.toString(offset) : offset + "." + index;
    }

    /** The position an id stands for; empty when {@code id} is not an event id. */
    public static Optional<Long> parse(String id) {
        try {
            int dot = id.indexOf('.');
            if (dot < 0) {
                long offset = Long.parseLong(id);
                return offset < -1 || offset > MAX_OFFSET ? Optional.empty() : Optional.of(record(offset));
            }
            long offset = Long.parseLong(id.substring(0, dot));
            int index = Integer.parseInt(id.substring(dot + 1));
            if (offset < 0
                    || offset > MAX_OFFSET
                    || index < 0
                    || index >= MAX_INDEX
                    || !id.substring(dot + 1).equals(Integer.toString(index))) {
                return Optional.empty();
            }
            return Optional.of(batchEntry(offset, index));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
