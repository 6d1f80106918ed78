package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PasswordHasherTest {
    final PasswordHasher hasher =
            new PasswordHasher(UsersConfig.builder().argon2(1024, 2, 1).build().password());

    @Test
    void hashesAreArgon2idPhcStringsWithTheConfiguredParametersAndARandomSalt() {
        String first = hasher.hash("correct horse");
        String second = hasher.hash("correct horse");

        assertThat(first).matches("\\$argon2id\\$v=19\\$m=1024,t=2,p=1\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}");
        assertThat(first).isNotEqualTo(second);
    }

    @Test
    void verifyAcceptsOnlyTheRightPassword() {
        String hash = hasher.hash("correct horse");

        assertThat(hasher.verify("correct horse", hash)).isTrue();
        assertThat(hasher.verify("correct horsE", hash)).isFalse();
        assertThat(hasher.verify("", hash)).isFalse();
    }

    @Test
    void passwordsAreNfkcNormalisedSoEquivalentSpellingsVerify() {
        String composed = "caf\u00e9-password";
        String decomposed = "cafe\u0301-password";

        assertThat(hasher.verify(decomposed, hasher.hash(composed))).isTrue();
    }

    @Test
    void malformedHashesNeverVerify() {
        assertThat(hasher.verify("x", "")).isFalse();
        assertThat(hasher.verify("x", "$argon2i$v=19$m=1024,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"))
                .isFalse();
        assertThat(hasher.verify("x", "$argon2id$v=19$m=1024,t=2$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"))
                .isFalse();
        assertThat(hasher.verify("x", "plain")).isFalse();
    }

    @Test
    void hashesMadeWithOtherParametersVerifyButAskForARehash() {
        PasswordHasher stronger = new PasswordHasher(
                UsersConfig.builder().argon2(2048, 2, 1).build().password());
        String old = hasher.hash("pw-123456");

        assertThat(stronger.verify("pw-123456", old)).isTrue();
        assertThat(stronger.needsRehash(old)).isTrue();
        assertThat(hasher.needsRehash(old)).isFalse();
    }

    @Test
    void theDummyHashUsesTheCurrentParametersAndMatchesNoOrdinaryPassword() {
        assertThat(hasher.needsRehash(hasher.dummyHash())).isFalse();
        assertThat(hasher.verify("", hasher.dummyHash())).isFalse();
        assertThat(hasher.verify("password", hasher.dummyHash())).isFalse();
    }

    @Test
    void matchesTheArgon2ReferenceImplementation() {
        // argon2 reference CLI: echo -n password | argon2 somesalt -id -t 2 -m 10 -p 1 -l 32 -e
        String reference = "$argon2id$v=19$m=1024,t=2,p=1$c29tZXNhbHQ$" + "7FfsnA6vUe7qLpL/3Kqc3uR48ZJyFbUVt7jWZlf0Htk";

        assertThat(hasher.verify("password", reference)).isTrue();
    }
}
