package dev.warden.pipeline.contract;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** Kafka serde for the topic form of stream events; an undecodable value reads as {@code null}. */
public final class StreamEventSerdes {
    private StreamEventSerdes() {
    }

    public static Serde<StreamEvent.Draft> drafts() {
        return Serdes.serdeFrom((Serializer<StreamEvent.Draft>) (topic, d) -> d == null ? null : StreamEventCodec.encode(d),
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
