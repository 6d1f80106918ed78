package dev.warden.api.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
    @Test
    void everyCodeIsUniqueSnakeCaseAndAnHttpErrorStatus() {
        // The SPEC fixes INVALID_CREDENTIALS in upper case; every other code is lower snake case.
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::code)).doesNotHaveDuplicates()
                .allMatch(c -> c.matches("[a-z]+(_[a-z]+)*") || c.equals("INVALID_CREDENTIALS"));
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::status)).allMatch(s -> s >= 400 && s < 600);
    }
}
