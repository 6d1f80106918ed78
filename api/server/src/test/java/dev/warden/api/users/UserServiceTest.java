package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.api.access.Principal;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.WardenException;
import dev.warden.authorizer.domain.UserId;
import dev.warden.testing.MutableClock;
import java.lang.reflect.Proxy;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Rules {@link UserService} enforces before it touches storage (no I/O: the repository must not be called). */
class UserServiceTest {
    final UserRepository untouchable = (UserRepository) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {UserRepository.class}, (proxy, method, args) -> {
                throw new AssertionError("storage must not be used, but " + method.getName() + " was called");
            });

    UserService service(UsersConfig config) {
        return new UserService(untouchable, config, new PasswordHasher(config.password()), null, new MutableClock());
    }

    @Test
    void signUpIsRefusedWhenClosed() {
        UserService closed = service(
                UsersConfig.builder().argon2(64, 1, 1).signUpEnabled(false).build());

        assertThatThrownBy(() -> closed.signUp(
                        new UserService.SignUp("ann_lee", "long enough password", Optional.empty(), Optional.empty()),
                        new Origin("192.0.2.1", Optional.empty())))
                .isInstanceOfSatisfying(
                        WardenException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SIGNUP_CLOSED));
    }

    @Test
    void signUpReportsEveryBadFieldBeforeHashingOrStoring() {
        UserService open = service(
                UsersConfig.builder().argon2(64, 1, 1).passwordLength(12, 64).build());

        assertThatThrownBy(() -> open.signUp(
                        new UserService.SignUp("x", "elevenchars", Optional.of("nope"), Optional.empty()),
                        new Origin("192.0.2.1", Optional.empty())))
                .isInstanceOfSatisfying(
                        WardenException.class,
                        e -> assertThat(e.errors())
                                .extracting(f -> f.field() + ": " + f.message())
                                .containsExactly(
                                        "username: must be at least 3 characters",
                                        "password: must be at least 12 characters",
                                        "email: must be an e-mail address"));
    }

    @Test
    void sessionOnlyOperationsRefuseApiTokensAndTheAdmin() {
        UserService users = service(UsersConfig.builder().argon2(64, 1, 1).build());
        Principal apiToken = new Principal.User(UserId.of("ann"), "tok_1");

        for (Principal caller : new Principal[] {apiToken, new Principal.Admin()}) {
            assertThatThrownBy(() -> users.signOut(caller, "192.0.2.1"))
                    .isInstanceOfSatisfying(
                            WardenException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
            assertThatThrownBy(() -> users.changeUsername(caller, "new_name")).isInstanceOf(WardenException.class);
            assertThatThrownBy(() -> users.current(caller)).isInstanceOf(WardenException.class);
        }
    }
}
