package dev.warden.api.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each kind of domain error takes only the codes of its kind, so a surface can trust the kind. */
class DomainErrorsTest {
    @Test
    void everyCodeHasAKindAndAKindRefusesCodesOfAnother() {
        for (ErrorCode code : ErrorCode.values()) {
            if (code == ErrorCode.INTERNAL
                    || code == ErrorCode.METHOD_NOT_ALLOWED
                    || code == ErrorCode.NOT_ACCEPTABLE) {
                continue; // written by the surface itself, never thrown by a service
            }
            WardenException e = switch (code.status()) {
                case 400, 413, 415 ->
                    code == ErrorCode.VALIDATION_INVALID
                            ? InvalidInputException.field("f", "bad")
                            : new InvalidInputException(code, "bad");
                case 401 -> new UnauthenticatedException(code, "who?");
                case 403 -> new ForbiddenException(code, "no");
                case 404 -> new NotFoundException(code, "none");
                case 409 -> new ConflictException(code, "state");
                case 423 -> new AccountLockedException(Duration.ofMinutes(1));
                case 429 -> new TooManyRequestsException(code, "later", Duration.ofSeconds(1));
                case 503 -> new UnavailableException("later", Duration.ofSeconds(1));
                default -> throw new AssertionError(code + " has no kind");
            };
            assertThat(e.code()).isEqualTo(code);
        }
        assertThatThrownBy(() -> new NotFoundException(ErrorCode.CONFLICT, "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InvalidInputException(ErrorCode.FORBIDDEN, "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConflictException(ErrorCode.AGENT_NOT_FOUND, "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void retriableFailuresSayWhenToRetryAndInputFailuresNameTheirFields() {
        RetriableException later = new UnavailableException("the audit log is unavailable", Duration.ofSeconds(2));
        assertThat(later.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        InvalidInputException bad =
                new InvalidInputException(List.of(new FieldError("a", "x"), new FieldError("b", "y")));
        assertThat(bad.errors()).extracting(FieldError::field).containsExactly("a", "b");
        assertThat(bad.detail()).hasValue("2 fields are invalid");
        assertThat(new InsufficientScopeException("agents:write").scope()).isEqualTo("agents:write");
    }
}
