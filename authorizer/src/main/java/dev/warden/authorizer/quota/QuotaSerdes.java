package dev.warden.authorizer.quota;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** Compact binary serdes (version byte + fields) for the quota request/reply topics. */
public final class QuotaSerdes {
    private static final byte VERSION = 1;

    private QuotaSerdes() {}

    public static Serde<QuotaRequest> requests() {
        return Serdes.serdeFrom(
                (Serializer<QuotaRequest>) (topic, r) -> write(out -> {
                    out.writeUTF(r.requestId());
                    out.writeUTF(r.replyTo());
                    out.writeLong(r.hour());
                    out.writeInt(r.steps().size());
                    for (QuotaRequest.Step step : r.steps()) {
                        out.writeUTF(step.counterKey());
                        out.writeLong(step.limit());
                    }
                }),
                (Deserializer<QuotaRequest>) (topic, bytes) -> read(bytes, in -> {
                    String id = in.readUTF();
                    String replyTo = in.readUTF();
                    long hour = in.readLong();
                    int n = in.readInt();
                    if (n < 1 || n > 1000) {
                        throw new IOException("bad step count " + n);
                    }
                    List<QuotaRequest.Step> steps = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        steps.add(new QuotaRequest.Step(in.readUTF(), in.readLong()));
                    }
                    return new QuotaRequest(id, replyTo, hour, steps);
                }));
    }

    public static Serde<QuotaReply> replies() {
        return Serdes.serdeFrom(
                (Serializer<QuotaReply>) (topic, r) -> write(out -> {
                    out.writeUTF(r.requestId());
                    out.writeBoolean(r.granted());
                    out.writeLong(r.hour());
                    out.writeUTF(r.exhaustedCounter());
                    out.writeLong(r.remaining());
                }),
                (Deserializer<QuotaReply>) (topic, bytes) -> read(
                        bytes,
                        in -> new QuotaReply(
                                in.readUTF(), in.readBoolean(), in.readLong(), in.readUTF(), in.readLong())));
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] bytes, Reader<T> reader) {
        if (bytes == null) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new SerializationException("unknown quota message version " + version);
            }
            return reader.read(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new SerializationException("malformed quota message: " + e.getMessage(), e);
        }
    }
}
