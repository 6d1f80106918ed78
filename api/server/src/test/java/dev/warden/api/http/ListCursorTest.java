package dev.warden.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.errors.InvalidInputException;
import dev.warden.runtime.db.Keyset;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ListCursorTest {
    private final ListCursor cursors = new ListCursor(new byte[32]);
    private final Keyset position = new Keyset(Instant.parse("2026-11-24T10:00:00.123456Z"), "agt_1");

    @Test
    void aCursorNamesItsPositionInItsListOnly() {
        String cursor = cursors.encode("agents:org_a", position);
        assertThat(cursors.decode("agents:org_a", cursor)).isEqualTo(position);
        assertBad("agents:org_b", cursor);
        assertThatThrownBy(() -> new ListCursor(new byte[] {1}).decode("agents:org_a", cursor))
                .isInstanceOf(InvalidInputException.class);
    }

    @Test
    void everyOneCharacterChangeIsRefused() {
        String cursor = cursors.encode("agents:org_a", position);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
        for (int i = 0; i < cursor.length(); i++) {
            for (char c : alphabet.toCharArray()) {
                if (c != cursor.charAt(i)) {
                    assertBad("agents:org_a", cursor.substring(0, i) + c + cursor.substring(i + 1));
                }
            }
        }
    }

    @Test
    void garbageIsABadCursorNotAnError() {
        for (String garbage : new String[] {"", ".", "x.y", "!!!.???", "a".repeat(600) + ".b"}) {
            assertBad("agents:org_a", garbage);
        }
    }

    private void assertBad(String list, String cursor) {
        assertThatThrownBy(() -> cursors.decode(list, cursor))
                .isInstanceOf(InvalidInputException.class)
                .satisfies(e ->
                        assertThat(((InvalidInputException) e).code().code()).isEqualTo("bad_cursor"));
    }
}
