package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The one JSON configuration of the platform: ISO 8601 UTC timestamps with exactly millisecond precision
 * ({@code 2026-01-02T03:04:05.000Z}), strict numbers, bounded nesting. Thread-safe.
 */
public final class Json {
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(java.time.ZoneOffset.UTC);

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("warden-time").addSerializer(Instant.class, new InstantSerializer()))
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(64).maxStringLength(1 << 20).maxNumberLength(64).build());
    }

    private Json() {
    }

    /** The shared mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** {@code instant} as Warden writes timestamps everywhere: UTC, milliseconds, {@code Z}. */
    public static String timestamp(Instant instant) {
        return MILLIS.format(instant.truncatedTo(ChronoUnit.MILLIS));
    }

    private static final class InstantSerializer extends JsonSerializer<Instant> {
        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
            gen.writeString(timestamp(value));
        }
    }
}
