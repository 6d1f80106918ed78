package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hand-written timestamp paths agree with java.time on every instant they take. */
class JsonTest {
    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Test
    void timestampMatchesTheFormatterOnRandomInstantsIncludingBeforeTheEpoch() {
        SplittableRandom random = new SplittableRandom(7);
        long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 100_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(min, max + 1), random.nextInt(1_000_000_000));
            String written = Json.timestamp(instant);
            assertThat(written).isEqualTo(REFERENCE.format(instant.truncatedTo(ChronoUnit.MILLIS)));
            assertThat(Json.parseTimestamp(written)).isEqualTo(instant.truncatedTo(ChronoUnit.MILLIS));
        }
    }

    @Test
    void timestampOutsideFourDigitYearsFallsBackToTheFormatter() {
        Instant far = Instant.parse("+10000-01-01T00:00:00.123Z");
        assertThat(Json.timestamp(far)).isEqualTo(REFERENCE.format(far));
    }

    @Test
    void parseAcceptsOtherIsoFormsThroughInstantParse() {
        assertThat(Json.parseTimestamp("2026-01-01T00:00:00Z")).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(Json.parseTimestamp("2026-01-01T00:00:00.123456Z"))
                .isEqualTo(Instant.parse("2026-01-01T00:00:00.123456Z"));
    }

    @Test
    void parseRejectsImpossibleDatesOnTheFastPath() {
        assertThatThrownBy(() -> Json.parseTimestamp("2026-13-01T00:00:00.000Z"))
                .isInstanceOf(DateTimeException.class);
        assertThatThrownBy(() -> Json.parseTimestamp("2026-02-30T00:00:00.000Z"))
                .isInstanceOf(DateTimeException.class);
        assertThatThrownBy(() -> Json.parseTimestamp("2026-01-01T24:00:00.000Z"))
                .isInstanceOf(DateTimeException.class);
        assertThatThrownBy(() -> Json.parseTimestamp("2026-01-01 00:00:00.000Z"))
                .isInstanceOf(DateTimeException.class);
    }
}
