package dev.warden.sinks.external;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The few pieces of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/) that OTLP
 * logs need: varints, fixed64 (and doubles as fixed64), and length-delimited strings and sub-messages. Writes
 * exactly what it is told: proto3's omission of default values is the caller's choice, which matters for
 * {@code oneof} members such as {@code AnyValue.double_value}, which must be written even when zero. Not
 * thread-safe; one writer per message.
 */
final class ProtoWriter {
    static final int WIRE_VARINT = 0;
    static final int WIRE_I64 = 1;
    static final int WIRE_LEN = 2;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

    /** A varint field: int32, int64, uint32, uint64, bool and enum values. Negative values take ten bytes. */
    ProtoWriter varint(int field, long value) {
        tag(field, WIRE_VARINT);
        rawVarint(value);
        return this;
    }

    /** A {@code fixed64} field: eight bytes, little-endian. */
    ProtoWriter fixed64(int field, long value) {
        tag(field, WIRE_I64);
        for (int i = 0; i < 8; i++) {
            out.write((int) (value >>> (8 * i)) & 0xff);
        }
        return this;
    }

    /** A {@code double} field: the IEEE 754 bits as fixed64. */
    ProtoWriter doubleValue(int field, double value) {
        return fixed64(field, Double.doubleToRawLongBits(value));
    }

    /** A {@code string} field, UTF-8. */
    ProtoWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A {@code bytes} field. */
    ProtoWriter bytes(int field, byte[] value) {
        tag(field, WIRE_LEN);
        rawVarint(value.length);
        out.writeBytes(value);
        return this;
    }

    /** An embedded message field whose content {@code body} writes. */
    ProtoWriter message(int field, Consumer<ProtoWriter> body) {
        ProtoWriter nested = new ProtoWriter();
        body.accept(nested);
        return bytes(field, nested.toByteArray());
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }

    private void tag(int field, int wireType) {
        if (field < 1 || field > (1 << 29) - 1) {
            throw new IllegalArgumentException("field number out of range: " + field);
        }
        rawVarint(((long) field << 3) | wireType);
    }

    private void rawVarint(long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
