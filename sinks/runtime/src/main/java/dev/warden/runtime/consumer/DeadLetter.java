package dev.warden.runtime.consumer;

import dev.warden.pipeline.contract.CleanText;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record a sink can never write, kept with why (docs/errors.md, "Where poison records go"): the sink, the
 * record's position and its bytes exactly as they were on the topic, and the error. Stored in
 * {@code sink_dead_letters}; the administrator reads them there (or with {@code GET /admin/dead-letters}).
 *
 * @param sink   the sink that gave up on the record ({@code postgres-audit}, {@code audit-sink:splunk-hec}, ...)
 * @param error  why, scrubbed of characters PostgreSQL refuses and at most {@value #MAX_ERROR} characters
 */
public record DeadLetter(
        String sink,
        String topic,
        int partition,
        long offset,
        Optional<byte[]> key,
        Optional<byte[]> value,
        String error) {
    /** Longest error text kept. */
    public static final int MAX_ERROR = 2000;

    public DeadLetter {
        error = shorten(CleanText.scrub(error == null ? "unknown error" : error));
    }

    /** The dead letter of a polled record. */
    public static DeadLetter of(String sink, ConsumerRecord<String, byte[]> record, String error) {
        return new DeadLetter(
                sink,
                record.topic(),
                record.partition(),
                record.offset(),
                Optional.ofNullable(record.key()).map(k -> k.getBytes(StandardCharsets.UTF_8)),
                Optional.ofNullable(record.value()),
                error);
    }

    private static String shorten(String text) {
        if (text.length() <= MAX_ERROR) {
            return text;
        }
        int cut = Character.isHighSurrogate(text.charAt(MAX_ERROR - 1)) ? MAX_ERROR - 1 : MAX_ERROR;
        return text.substring(0, cut) + "…";
    }
}
