package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * The one JSON configuration of the platform: ISO 8601 UTC timestamps with exactly millisecond precision
 * ({@code 2026-01-02T03:04:05.000Z}), strict numbers, bounded nesting. Thread-safe.
 */
public final class Json {
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("warden-time").addSerializer(Instant.class, new InstantSerializer()))
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(64).maxStringLength(1 << 20).maxNumberLength(64).build());
    }

    /** Reads a JSON object nested in a larger document, so what follows it is not "trailing". */
    private static final ObjectReader NESTED_OBJECT = MAPPER.readerFor(new TypeReference<Map<String, Object>>() { })
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /**
     * Reads the JSON object at {@code parser}'s current token (its {@code START_OBJECT}) as JDK JSON values,
     * leaving the parser on the object's {@code END_OBJECT}; for codecs that stream the enclosing document.
     */
    public static Map<String, Object> readNestedObject(JsonParser parser) throws IOException {
        return NESTED_OBJECT.readValue(parser);
    }

    /** The shared mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** {@code instant} as Warden writes timestamps everywhere: UTC, milliseconds, {@code Z}. */
    public static String timestamp(Instant instant) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), 0, ZoneOffset.UTC);
        if (t.getYear() < 0 || t.getYear() > 9999) {
            return MILLIS.format(instant.truncatedTo(ChronoUnit.MILLIS));
        }
        // On every decision's path (audit entries, events): written by hand, several times cheaper than
        // DateTimeFormatter and the same text.
        char[] c = new char[TIMESTAMP_LENGTH];
        digits(c, 0, t.getYear(), 4);
        c[4] = '-';
        digits(c, 5, t.getMonthValue(), 2);
        c[7] = '-';
        digits(c, 8, t.getDayOfMonth(), 2);
        c[10] = 'T';
        digits(c, 11, t.getHour(), 2);
        c[13] = ':';
        digits(c, 14, t.getMinute(), 2);
        c[16] = ':';
        digits(c, 17, t.getSecond(), 2);
        c[19] = '.';
        digits(c, 20, instant.getNano() / 1_000_000, 3);
        c[23] = 'Z';
        return new String(c);
    }

    /**
     * Reads a timestamp: Warden's own form ({@link #timestamp}) on a fast path, else any ISO 8601 instant
     * {@link Instant#parse} accepts.
     *
     * @throws java.time.DateTimeException when {@code text} is not a valid instant
     */
    public static Instant parseTimestamp(String text) {
        if (!isWardenTimestamp(text)) {
            return Instant.parse(text);
        }
        return LocalDateTime.of(number(text, 0, 4), number(text, 5, 2), number(text, 8, 2), number(text, 11, 2),
                number(text, 14, 2), number(text, 17, 2), number(text, 20, 3) * 1_000_000).toInstant(ZoneOffset.UTC);
    }

    private static final int TIMESTAMP_LENGTH = 24;
    private static final String TIMESTAMP_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ";

    private static boolean isWardenTimestamp(String text) {
        if (text.length() != TIMESTAMP_LENGTH) {
            return false;
        }
        for (int i = 0; i < TIMESTAMP_LENGTH; i++) {
            char expected = TIMESTAMP_SHAPE.charAt(i);
            char actual = text.charAt(i);
            if (expected == 'd' ? actual < '0' || actual > '9' : actual != expected) {
                return false;
            }
        }
        return true;
    }

    private static int number(String text, int from, int length) {
        int n = 0;
        for (int i = from; i < from + length; i++) {
            n = n * 10 + (text.charAt(i) - '0');
        }
        return n;
    }

    private static void digits(char[] into, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            into[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    private static final class InstantSerializer extends JsonSerializer<Instant> {
        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
            gen.writeString(timestamp(value));
        }
    }
}
