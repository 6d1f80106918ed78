package dev.warden.sinks.external;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A test-side protobuf wire-format reader, written independently of {@link ProtoWriter}: splits a message into
 * its fields (number, wire type, value) so that tests can check field numbers and types.
 */
final class ProtoReader {
    /** One field: {@code value} for varint/i64/i32, {@code bytes} for length-delimited. */
    record Field(int number, int wireType, long value, byte[] bytes) {
        List<Field> message() {
            if (wireType != 2) {
                throw new AssertionError("field " + number + " is not length-delimited (wire type " + wireType + ")");
            }
            return parse(bytes);
        }

        String string() {
            if (wireType != 2) {
                throw new AssertionError("field " + number + " is not length-delimited (wire type " + wireType + ")");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private final byte[] data;
    private int pos;

    private ProtoReader(byte[] data) {
        this.data = data;
    }

    static List<Field> parse(byte[] data) {
        ProtoReader r = new ProtoReader(data);
        List<Field> fields = new ArrayList<>();
        while (r.pos < data.length) {
            long tag = r.varint();
            int number = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            fields.add(
                    switch (wireType) {
                        case 0 -> new Field(number, wireType, r.varint(), new byte[0]);
                        case 1 -> new Field(number, wireType, r.littleEndian(8), new byte[0]);
                        case 2 -> new Field(number, wireType, 0, r.bytes((int) r.varint()));
                        case 5 -> new Field(number, wireType, r.littleEndian(4), new byte[0]);
                        default -> throw new AssertionError("unsupported wire type " + wireType + " at byte " + r.pos);
                    });
        }
        return fields;
    }

    /** The fields numbered {@code number}, in order. */
    static List<Field> all(List<Field> fields, int number) {
        return fields.stream().filter(f -> f.number() == number).toList();
    }

    /** The one field numbered {@code number}. */
    static Field one(List<Field> fields, int number) {
        List<Field> found = all(fields, number);
        if (found.size() != 1) {
            throw new AssertionError("expected one field " + number + ", found " + found.size() + " in " + fields);
        }
        return found.get(0);
    }

    private long varint() {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = data[pos++];
            result |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new AssertionError("varint longer than 10 bytes");
    }

    private long littleEndian(int size) {
        long result = 0;
        for (int i = 0; i < size; i++) {
            result |= (long) (data[pos++] & 0xff) << (8 * i);
        }
        return result;
    }

    private byte[] bytes(int length) {
        if (pos + length > data.length) {
            throw new AssertionError("length " + length + " overruns the message at byte " + pos);
        }
        byte[] out = Arrays.copyOfRange(data, pos, pos + length);
        pos += length;
        return out;
    }
}
