package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BootstrapTokenVerdictTest {
    static BootstrapTokenVerdict judge(String token) {
        return BootstrapTokenVerdict.of(Optional.of(token));
    }

    @Test
    void aMintedTokenIsNeverWeak() {
        BootstrapTokenVerdict verdict = BootstrapTokenVerdict.of(Optional.empty());

        assertThat(verdict.weak()).isFalse();
        assertThat(verdict.configured()).isFalse();
    }

    @Test
    void aConfiguredTokenInTheMintedFormatIsStrong() {
        for (int i = 0; i < 1_000; i++) {
            String token = Tokens.mint(TokenKind.ADMIN);
            assertThat(judge(token).weaknesses()).as(token).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "f3c1e0a9b7d24c6e8a1f9b0c2d4e6f80",
                "Zq8#vT2!mL5@xR9$wK3%nB7^cH1&pJ4*",
                "correct-horse-battery-staple-orbit-lantern"
            })
    void longVariedConfiguredTokensAreStrong(String token) {
        assertThat(judge(token).weak()).isFalse();
        assertThat(judge(token).configured()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "admin",
                "changeme",
                "password",
                "secret",
                "warden",
                "test",
                "wdn_adm_tour-admin",
                "s3cr3t-but-short"
            })
    void shortTokensAreWeak(String token) {
        assertThat(judge(token).weaknesses()).contains("shorter than 32 characters");
    }

    @Test
    void theWardenPrefixDoesNotCountTowardsTheLength() {
        String secretPart = "Zq8#vT2!mL5@xR9$wK3%nB7^cH1&pJ4";

        assertThat(judge(TokenKind.ADMIN.prefix() + secretPart).weaknesses())
                .containsExactly("shorter than 32 characters");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "abababababababababababababababababab",
                "0000000000000000000000000000000000000000"
            })
    void repeatedCharactersAreWeak(String token) {
        assertThat(judge(token).weaknesses())
                .contains("fewer than 10 different characters", "a repeated or sequential pattern");
    }

    @Test
    void aRepeatedLongerSequenceIsWeakEvenWithEnoughDifferentCharacters() {
        assertThat(judge("Xk29fLq7Zp3Xk29fLq7Zp3Xk29fLq7Zp3").weaknesses())
                .containsExactly("a repeated or sequential pattern");
    }

    @Test
    void aRunOfConsecutiveCharactersIsWeak() {
        assertThat(judge("abcdefghijklmnopqrstuvwxyz0123456789").weaknesses())
                .containsExactly("a repeated or sequential pattern");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "my-warden-admin-token-for-production-2024",
                "supersecretadmintokenforwarden2024!!",
                "PASSWORD-for-the-x7Qm2-deploy-9k"
            })
    void longTokensBuiltFromWellKnownWordsAreWeak(String token) {
        assertThat(judge(token).weaknesses()).containsExactly("made largely of well-known words or default values");
    }

    @Test
    void aWellKnownWordInsideALongRandomTokenIsNotEnough() {
        assertThat(judge("q7Vd0testXr2mPz9LkW3bNc8HyT5fJ1sA6gE4").weak()).isFalse();
    }

    @Test
    void theVerdictNeverHoldsTheToken() {
        String token = "changeme-changeme";

        assertThat(judge(token).toString()).doesNotContain(token).doesNotContain("changeme");
    }
}
