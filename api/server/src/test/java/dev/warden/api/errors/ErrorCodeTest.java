package dev.warden.api.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
    @Test
    void everyCodeIsUniqueSnakeCaseAndAnHttpErrorStatus() {
        // The SPEC fixes INVALID_CREDENTIALS in upper case; every other code is lower snake case.
        // OAuth errors are RFC 6749's vocabulary: one value may come with two statuses (access_denied).
        assertThat(Arrays.stream(ErrorCode.values())
                        .filter(c -> !c.name().startsWith("OAUTH_"))
                        .map(ErrorCode::code))
                .doesNotHaveDuplicates();
        assertThat(Arrays.stream(ErrorCode.values())
                        .filter(c -> c.name().startsWith("OAUTH_"))
                        .map(c -> c.code() + "/" + c.status()))
                .doesNotHaveDuplicates();
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::code))
                .allMatch(c -> c.matches("[a-z]+(_[a-z]+)*") || c.equals("INVALID_CREDENTIALS"));
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::status)).allMatch(s -> s >= 400 && s < 600);
    }
}
