package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * The one JSON configuration of the platform: ISO 8601 UTC timestamps with exactly millisecond precision
 * ({@code 2026-01-02T03:04:05.000Z}), strict numbers, bounded nesting. Thread-safe.
 *
 * <p>Two sets of read limits: {@link #requestReader()} for what enters over HTTP (numbers of at most
 * {@value #REQUEST_MAX_NUMBER_CHARS} characters, nesting at most {@value #REQUEST_MAX_DEPTH} deep, duplicate
 * keys refused) and {@link #mapper()} for what Warden wrote itself and reads back (Kafka records, PostgreSQL
 * {@code jsonb}). The second is wider on purpose: everything the first lets in must read back after storage,
 * where PostgreSQL prints a number without exponent ({@code 1e300} comes back as 301 digits) and a request's
 * objects sit a few levels deeper inside an audit entry or a stream event.
 */
public final class Json {
    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /**
     * Jackson's buffers (an 8,000-byte and a 4,000-char array per parser or generator) are recycled through one
     * bounded pool shared by every thread, not Jackson's default of one set per thread: every request here runs on
     * its own virtual thread, and a thread-local set stayed reachable for as long as its thread lived, which is the
     * whole life of a long request such as an event stream (8 KB of heap per SSE connection).
     */
    private static final int RECYCLED_BUFFERS = 64;

    private static JsonFactory factory() {
        return JsonFactory.builder()
                .recyclerPool(JsonRecyclerPools.newBoundedPool(RECYCLED_BUFFERS))
                .build();
    }

    private static final ObjectMapper MAPPER = JsonMapper.builder(factory())
            .addModule(new SimpleModule("warden-time").addSerializer(Instant.class, new InstantSerializer()))
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    /** Longest number a request may write, in characters. */
    public static final int REQUEST_MAX_NUMBER_CHARS = 64;
    /** Deepest nesting a request may use (its own object counts as one). */
    public static final int REQUEST_MAX_DEPTH = 32;
    /**
     * Longest number read back from storage: a request's number of {@value #REQUEST_MAX_NUMBER_CHARS} characters
     * within the double range prints as at most about 400 digits in PostgreSQL's plain notation.
     */
    static final int STORED_MAX_NUMBER_CHARS = 1000;

    private static final ObjectMapper REQUEST_MAPPER = JsonMapper.builder(factory())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    static {
        MAPPER.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(64)
                        .maxStringLength(1 << 20)
                        .maxNumberLength(STORED_MAX_NUMBER_CHARS)
                        .build());
        REQUEST_MAPPER
                .getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(REQUEST_MAX_DEPTH)
                        .maxStringLength(1 << 20)
                        .maxNumberLength(REQUEST_MAX_NUMBER_CHARS)
                        .build());
    }

    /**
     * The reader for request bodies: the limits of what may enter (see the class comment). What it reads
     * still has to pass the edge's value checks (text, number range) before it is used.
     */
    public static ObjectReader requestReader() {
        return REQUEST_MAPPER.reader();
    }

    /** Reads a JSON object nested in a larger document, so what follows it is not "trailing". */
    private static final ObjectReader NESTED_OBJECT = MAPPER.readerFor(new TypeReference<Map<String, Object>>() {})
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {}

    /** Writes one JSON document with a generator. */
    @FunctionalInterface
    public interface DocumentWriter {
        void write(JsonGenerator generator) throws IOException;
    }

    /** The bytes of the document {@code writer} writes; {@code sizeHint} is the expected length. */
    public static byte[] bytes(int sizeHint, DocumentWriter writer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
        try (JsonGenerator g = MAPPER.createGenerator(out)) {
            writer.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The string value at {@code parser}'s current token, or null for JSON null, for codecs that stream.
     *
     * @throws IllegalArgumentException when the value is neither a string nor null
     */
    public static String nullableString(JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case VALUE_STRING -> parser.getText();
            case VALUE_NULL -> null;
            default -> throw new IllegalArgumentException(parser.currentName() + " is not a string");
        };
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
        // DateTimeFormatter and the same text. The separators come from the shape, the digits fill its d's.
        char[] c = TIMESTAMP_SHAPE.toCharArray();
        digits(c, 0, t.getYear(), 4);
        digits(c, 5, t.getMonthValue(), 2);
        digits(c, 8, t.getDayOfMonth(), 2);
        digits(c, 11, t.getHour(), 2);
        digits(c, 14, t.getMinute(), 2);
        digits(c, 17, t.getSecond(), 2);
        digits(c, 20, instant.getNano() / 1_000_000, 3);
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
        return LocalDateTime.of(
                        number(text, 0, 4),
                        number(text, 5, 2),
                        number(text, 8, 2),
                        number(text, 11, 2),
                        number(text, 14, 2),
                        number(text, 17, 2),
                        number(text, 20, 3) * 1_000_000)
                .toInstant(ZoneOffset.UTC);
    }

    /** Warden's timestamp form: {@code d} is a digit, every other character stands for itself. */
    private static final String TIMESTAMP_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ";

    private static boolean isWardenTimestamp(String text) {
        if (text.length() != TIMESTAMP_SHAPE.length()) {
            return false;
        }
        for (int i = 0; i < TIMESTAMP_SHAPE.length(); i++) {
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
