package dev.warden.api.users;

import dev.warden.pipeline.contract.WireEnum;
import io.helidon.config.Config;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Node {@code warden.users}: the username plugin, password hashing, account lockout and sessions. Every key
 * is optional; {@link #builder()} holds the defaults, which follow the SPEC (username rules) and OWASP's
 * password storage guidance (Argon2id, m = 19 MiB, t = 2, p = 1).
 *
 * @param signUpEnabled whether {@code POST /auth/sign-up} accepts new users (403 {@code signup_closed} otherwise)
 */
public record UsersConfig(
        boolean signUpEnabled,
        UsernameRules username,
        PasswordRules password,
        Lockout lockout,
        Sessions session,
        Set<StepUp> stepUp) {

    public UsersConfig {
        stepUp = Set.copyOf(stepUp);
    }

    /**
     * The areas that ask for a session signed in with a second factor (key {@code warden.users.step-up}, a comma
     * list; none by default).
     */
    public enum StepUp implements WireEnum {
        /** The organization routes under {@code /admin/v1/organizations}. */
        ORGANIZATION_ADMIN("organization-admin"),
        /** The account routes under {@code /account}. */
        ACCOUNT("account");

        private final String wireName;

        StepUp(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }

    /**
     * SPEC Username plugin configuration.
     *
     * @param minLength     smallest length, in code points (default 3)
     * @param maxLength     largest length (default 32)
     * @param pattern       a Java regex the whole username must match, checked after the length; default
     *                      {@code (?i)^[a-z0-9_-]+$}, the SPEC's {@code /^[a-z0-9_-]+$/i}
     * @param caseSensitive whether {@code Alice} and {@code alice} are different users (default false)
     */
    public record UsernameRules(int minLength, int maxLength, String pattern, boolean caseSensitive) {
        public UsernameRules {
            if (minLength < 1 || maxLength < minLength || maxLength > 256) {
                throw new IllegalArgumentException("warden.users.username: need 1 <= min-length <= max-length <= 256");
            }
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(
                        "warden.users.username.pattern is not a valid regex: " + e.getDescription(), e);
            }
        }
    }

    /**
     * Password policy and Argon2id cost (RFC 9106).
     *
     * @param minLength           shortest accepted password, in code points (default 8, NIST SP 800-63B)
     * @param maxLength           longest accepted password (default 256)
     * @param memoryKib           Argon2id memory in KiB (default 19456 = 19 MiB)
     * @param iterations          Argon2id passes (default 2)
     * @param parallelism         Argon2id lanes (default 1)
     * @param maxConcurrentHashes hashes computed at once; more callers wait, which bounds memory to
     *                            {@code maxConcurrentHashes * memoryKib} (default: available processors)
     */
    public record PasswordRules(
            int minLength, int maxLength, int memoryKib, int iterations, int parallelism, int maxConcurrentHashes) {
        public PasswordRules {
            if (minLength < 1 || maxLength < minLength || maxLength > 4096) {
                throw new IllegalArgumentException("warden.users.password: need 1 <= min-length <= max-length <= 4096");
            }
            if (memoryKib < 8 * parallelism || iterations < 1 || parallelism < 1 || parallelism > 64) {
                throw new IllegalArgumentException("warden.users.password.argon2: need iterations >= 1, "
                        + "1 <= parallelism <= 64 and memory-kib >= 8 * parallelism");
            }
            if (maxConcurrentHashes < 1) {
                throw new IllegalArgumentException("warden.users.password.max-concurrent-hashes must be >= 1");
            }
        }
    }

    /**
     * Account lockout: after {@code maxFailures} failed sign-ins, each within {@code window} of the previous
     * one, the account refuses sign-in for {@code duration}. {@code maxFailures} 0 disables lockout.
     */
    public record Lockout(int maxFailures, Duration window, Duration duration) {
        public Lockout {
            if (maxFailures < 0
                    || window.isNegative()
                    || window.isZero()
                    || duration.isNegative()
                    || duration.isZero()) {
                throw new IllegalArgumentException(
                        "warden.users.lockout: need max-failures >= 0 and positive " + "window and duration");
            }
        }

        /** True when lockout is on. */
        public boolean enabled() {
            return maxFailures > 0;
        }
    }

    /**
     * Sessions. A session expires {@code ttl} after its last refresh; a request made at least
     * {@code refreshAfter} after the last refresh refreshes it (sliding expiry, at most one write per
     * {@code refreshAfter}); no session outlives {@code maxLifetime} from sign-in.
     *
     * @param cookieName   the session cookie ({@code HttpOnly; SameSite=Lax; Path=/})
     * @param cookieSecure when the cookie gets {@code Secure}: {@code auto} (when the client used https,
     *                     directly or per a trusted proxy), {@code always} or {@code never}
     */
    public record Sessions(
            Duration ttl, Duration refreshAfter, Duration maxLifetime, String cookieName, CookieSecure cookieSecure) {
        public Sessions {
            if (ttl.compareTo(Duration.ofMinutes(1)) < 0
                    || refreshAfter.isNegative()
                    || maxLifetime.compareTo(ttl) < 0) {
                throw new IllegalArgumentException(
                        "warden.users.session: need ttl >= 60 s, refresh-after >= 0 and " + "max-lifetime >= ttl");
            }
            if (!cookieName.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException("warden.users.session.cookie-name must be 1-64 of [A-Za-z0-9_.-]");
            }
        }
    }

    /** When the session cookie carries {@code Secure}. */
    public enum CookieSecure implements WireEnum {
        AUTO("auto"),
        ALWAYS("always"),
        NEVER("never");

        private final String wireName;

        CookieSecure(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** Reads node {@code warden.users} ({@code node} is that node); missing keys keep their default. */
    public static UsersConfig from(Config node) {
        Builder b = builder();
        node.get("sign-up-enabled").asBoolean().ifPresent(b::signUpEnabled);
        Config u = node.get("username");
        u.get("min-length").asInt().ifPresent(v -> b.usernameMinLength = v);
        u.get("max-length").asInt().ifPresent(v -> b.usernameMaxLength = v);
        u.get("pattern").asString().ifPresent(v -> b.usernamePattern = v);
        u.get("case-sensitive").asBoolean().ifPresent(v -> b.caseSensitive = v);
        Config p = node.get("password");
        p.get("min-length").asInt().ifPresent(v -> b.passwordMinLength = v);
        p.get("max-length").asInt().ifPresent(v -> b.passwordMaxLength = v);
        p.get("argon2.memory-kib").asInt().ifPresent(v -> b.memoryKib = v);
        p.get("argon2.iterations").asInt().ifPresent(v -> b.iterations = v);
        p.get("argon2.parallelism").asInt().ifPresent(v -> b.parallelism = v);
        p.get("max-concurrent-hashes").asInt().ifPresent(v -> b.maxConcurrentHashes = v);
        Config l = node.get("lockout");
        l.get("max-failures").asInt().ifPresent(v -> b.maxFailures = v);
        l.get("window-seconds").asLong().ifPresent(v -> b.lockoutWindow = Duration.ofSeconds(v));
        l.get("duration-seconds").asLong().ifPresent(v -> b.lockoutDuration = Duration.ofSeconds(v));
        Config s = node.get("session");
        s.get("ttl-seconds").asLong().ifPresent(v -> b.sessionTtl = Duration.ofSeconds(v));
        s.get("refresh-after-seconds").asLong().ifPresent(v -> b.refreshAfter = Duration.ofSeconds(v));
        s.get("max-lifetime-seconds").asLong().ifPresent(v -> b.maxLifetime = Duration.ofSeconds(v));
        s.get("cookie-name").asString().ifPresent(v -> b.cookieName = v);
        s.get("cookie-secure")
                .asString()
                .ifPresent(v -> b.cookieSecure = WireEnum.parse(CookieSecure.class, v.strip())
                        .orElseThrow(() -> new IllegalArgumentException("warden.users.session.cookie-secure: '" + v
                                + "' is not one of " + WireEnum.choices(CookieSecure.class))));
        node.get("step-up").asString().ifPresent(v -> {
            Set<StepUp> areas = EnumSet.noneOf(StepUp.class);
            for (String name : v.split(",")) {
                if (!name.isBlank()) {
                    areas.add(WireEnum.parse(StepUp.class, name.strip())
                            .orElseThrow(() -> new IllegalArgumentException("warden.users.step-up: '" + name.strip()
                                    + "' is not one of " + WireEnum.choices(StepUp.class))));
                }
            }
            b.stepUp = areas;
        });
        return b.build();
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private boolean signUpEnabled = true;
        private int usernameMinLength = 3;
        private int usernameMaxLength = 32;
        private String usernamePattern = "(?i)^[a-z0-9_-]+$";
        private boolean caseSensitive = false;
        private int passwordMinLength = 8;
        private int passwordMaxLength = 256;
        private int memoryKib = 19_456;
        private int iterations = 2;
        private int parallelism = 1;
        private int maxConcurrentHashes = Math.max(1, Runtime.getRuntime().availableProcessors());
        private int maxFailures = 10;
        private Duration lockoutWindow = Duration.ofMinutes(15);
        private Duration lockoutDuration = Duration.ofMinutes(15);
        private Duration sessionTtl = Duration.ofDays(7);
        private Duration refreshAfter = Duration.ofDays(1);
        private Duration maxLifetime = Duration.ofDays(30);
        private String cookieName = "warden_session";
        private CookieSecure cookieSecure = CookieSecure.AUTO;
        private Set<StepUp> stepUp = Set.of();

        private Builder() {}

        public Builder signUpEnabled(boolean enabled) {
            this.signUpEnabled = enabled;
            return this;
        }

        public Builder username(int minLength, int maxLength, String pattern, boolean caseSensitive) {
            this.usernameMinLength = minLength;
            this.usernameMaxLength = maxLength;
            this.usernamePattern = pattern;
            this.caseSensitive = caseSensitive;
            return this;
        }

        public Builder passwordLength(int minLength, int maxLength) {
            this.passwordMinLength = minLength;
            this.passwordMaxLength = maxLength;
            return this;
        }

        /** Argon2id cost: memory in KiB, passes, lanes. */
        public Builder argon2(int memoryKib, int iterations, int parallelism) {
            this.memoryKib = memoryKib;
            this.iterations = iterations;
            this.parallelism = parallelism;
            return this;
        }

        public Builder maxConcurrentHashes(int max) {
            this.maxConcurrentHashes = max;
            return this;
        }

        public Builder lockout(int maxFailures, Duration window, Duration duration) {
            this.maxFailures = maxFailures;
            this.lockoutWindow = window;
            this.lockoutDuration = duration;
            return this;
        }

        public Builder session(Duration ttl, Duration refreshAfter, Duration maxLifetime) {
            this.sessionTtl = ttl;
            this.refreshAfter = refreshAfter;
            this.maxLifetime = maxLifetime;
            return this;
        }

        public Builder cookie(String name, CookieSecure secure) {
            this.cookieName = name;
            this.cookieSecure = secure;
            return this;
        }

        /** The areas that ask for a second-factor session. */
        public Builder stepUp(Set<StepUp> areas) {
            this.stepUp = Set.copyOf(areas);
            return this;
        }

        public UsersConfig build() {
            return new UsersConfig(
                    signUpEnabled,
                    new UsernameRules(usernameMinLength, usernameMaxLength, usernamePattern, caseSensitive),
                    new PasswordRules(
                            passwordMinLength,
                            passwordMaxLength,
                            memoryKib,
                            iterations,
                            parallelism,
                            maxConcurrentHashes),
                    new Lockout(maxFailures, lockoutWindow, lockoutDuration),
                    new Sessions(sessionTtl, refreshAfter, maxLifetime, cookieName, cookieSecure),
                    stepUp);
        }
    }
}
