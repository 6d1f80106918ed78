package dev.warden.pipeline.contract;

import java.util.Set;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** Kafka serde for the topic form of stream events; an undecodable value reads as {@code null}. */
public final class StreamEventSerdes {
    private StreamEventSerdes() {}

    /**
     * Like {@link #drafts()}, but a value of any other type reads as {@code null} without being decoded: for
     * a consumer that wants a few types out of a stream that is mostly {@code audit} events.
     */
    public static Serde<StreamEvent.Draft> drafts(Set<EventType> wanted) {
        Serde<StreamEvent.Draft> all = drafts();
        return Serdes.serdeFrom(all.serializer(), (Deserializer<StreamEvent.Draft>) (topic, bytes) -> bytes != null
                        && StreamEventCodec.peekType(bytes)
                                .filter(wanted::contains)
                                .isPresent()
                ? all.deserializer().deserialize(topic, bytes)
                : null);
    }

    public static Serde<StreamEvent.Draft> drafts() {
        return Serdes.serdeFrom(
                (Serializer<StreamEvent.Draft>) (topic, d) -> d == null ? null : StreamEventCodec.encode(d),
                (Deserializer<StreamEvent.Draft>) (topic, bytes) -> {
                    if (bytes == null) {
                        return null;
                    }
                    try {
                        return StreamEventCodec.decodeDraft(bytes);
                    } catch (IllegalArgumentException e) {
                        return null;
                    }
                });
    }
}
