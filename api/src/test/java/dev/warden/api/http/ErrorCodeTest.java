package dev.warden.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
    @Test
    void everyCodeIsUniqueSnakeCaseAndAnHttpErrorStatus() {
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::code)).doesNotHaveDuplicates()
                .allMatch(c -> c.matches("[a-z]+(_[a-z]+)*"));
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::status)).allMatch(s -> s >= 400 && s < 600);
    }
}
