package dev.warden.authorizer.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {
    private static final String ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

    @Test
    void mintedIdsArePrefixedCrockfordBase32WithEveryCharacterReachableAtEveryPosition() {
        Set<String> seen = new HashSet<>();
        @SuppressWarnings("unchecked")
        Set<Character>[] perPosition = new Set[26];
        for (int i = 0; i < 26; i++) {
            perPosition[i] = new HashSet<>();
        }
        for (int n = 0; n < 5_000; n++) {
            String id = Ids.mint("AUD");
            assertThat(id).startsWith("aud_").hasSize(30);
            assertThat(Ids.isValid(id)).isTrue();
            assertThat(seen.add(id)).as("ids are unique").isTrue();
            for (int i = 0; i < 26; i++) {
                char c = id.charAt(4 + i);
                assertThat(ALPHABET.indexOf(c)).as(id).isNotNegative();
                perPosition[i].add(c);
            }
        }
        for (int i = 0; i < 26; i++) {
            assertThat(perPosition[i]).as("position " + i).hasSize(32);
        }
    }

    @Test
    void validIdsAreOneTo128CharactersOfTheAllowedSet() {
        assertThat(Ids.isValid("alice.smith@example.com")).isTrue();
        assertThat(Ids.isValid("tenant:acme_1-x")).isTrue();
        assertThat(Ids.isValid("x".repeat(128))).isTrue();
        assertThat(Ids.isValid("x".repeat(129))).isFalse();
        assertThat(Ids.isValid("")).isFalse();
        assertThat(Ids.isValid(null)).isFalse();
        assertThat(Ids.isValid("a b")).isFalse();
        assertThat(Ids.isValid("a/b")).isFalse();
        assertThat(Ids.isValid("é")).isFalse();
    }
}
