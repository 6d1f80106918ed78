package dev.warden.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.errors.FieldError;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.Json;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The edge's value rules, without I/O. */
class InputContractTest {
    static JsonNode request(String json) throws Exception {
        return Json.requestReader().readTree(json);
    }

    @Test
    void textWithNulOrALoneSurrogateIsRefusedAndPairsAreFine() {
        assertThat(CleanText.problem("a\u0000b"))
                .hasValueSatisfying(p -> assertThat(p).contains("U+0000"));
        assertThat(CleanText.problem("\ud800"))
                .hasValueSatisfying(p -> assertThat(p).contains("lone surrogate"));
        assertThat(CleanText.problem("x\udc00")).isPresent();
        assertThat(CleanText.problem("abc\ud83d")).isPresent();
        assertThat(CleanText.problem("emoji \ud83d\ude00 ok")).isEmpty();
        assertThat(CleanText.scrub("a\u0000\ud800\ud83d\ude00")).isEqualTo("a\uFFFD\uFFFD\ud83d\ude00");
    }

    @Test
    void everyViolationIsNamedByItsPathKeysIncluded() throws Exception {
        JsonNode body = request("""
                {"name":"a\\u0000","metadata":{"n":1e400,"tiny":1e-400,"ok":1e300,"z":-0,"big":18446744073709551621,
                 "list":[1,"\\ud800"],"k\\u0000":1}}""");

        assertThat(InputContract.check(body))
                .extracting(FieldError::field)
                .containsExactlyInAnyOrder(
                        "name", "metadata.n", "metadata.tiny", "metadata.big", "metadata.list[1]", "metadata.k\uFFFD");
    }

    @Test
    void theRequestReaderRefusesDuplicateKeysDeepNestingAndLongNumbers() {
        assertThatThrownBy(() -> request("{\"a\":1,\"a\":2}")).hasMessageContaining("Duplicate field");
        assertThatThrownBy(() -> request("{\"a\":" + "[".repeat(40) + "]".repeat(40) + "}"))
                .hasMessageContaining("depth");
        assertThatThrownBy(() -> request("{\"a\":1" + "0".repeat(70) + "}"))
                .hasMessageContaining("Number value length");
    }

    @Test
    void storedJsonReadsBackWhatTheEdgeAcceptedInPostgresPlainNotation() throws Exception {
        // PostgreSQL prints jsonb numbers without exponent: 1e300 comes back as 301 digits.
        String plain = "{\"n\":1" + "0".repeat(300) + "}";
        assertThat(Json.mapper().readTree(plain).get("n").decimalValue()).isEqualByComparingTo("1e300");
    }

    @Test
    void timestampsAreYears0001To9999WithAnOffset() {
        assertThat(InputContract.timestamp("2026-01-01T00:00:00+01:00"))
                .isEqualTo(Instant.parse("2025-12-31T23:00:00Z"));
        assertThat(InputContract.timestamp("9999-12-31T23:59:59.999Z")).isEqualTo(InputContract.LATEST);
        assertThat(InputContract.timestamp("0001-01-01T00:00:00Z")).isEqualTo(InputContract.EARLIEST);
        for (String bad : new String[] {
            "+999999999-12-31T23:59:59Z",
            "-999999999-01-01T00:00:00Z",
            "0000-12-31T23:59:59Z",
            "+10000-01-01T00:00:00Z",
            "2026-01-01T00:00:00",
            "tomorrow"
        }) {
            assertThatThrownBy(() -> InputContract.timestamp(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0001 and 9999");
        }
    }
}
