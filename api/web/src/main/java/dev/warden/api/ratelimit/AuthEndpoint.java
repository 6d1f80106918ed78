package dev.warden.api.ratelimit;

import io.helidon.http.Method;
import java.util.List;
import java.util.Optional;

/**
 * The registry of per-IP limits on authentication endpoints (SPEC Limits). They apply with no
 * configuration, to each entry's method ({@code POST} for most) on its paths and their sub-paths, whether or not
 * the route exists yet: an endpoint a later issue mounts at one of these paths inherits its limit from here. Counters are
 * per endpoint and client IP.
 *
 * <p>Each entry also fixes what happens when a shared store (Redis) is down ({@link FailMode}): open where
 * an outage would lock users out and a second line of defence remains (sign-in has the account lockout;
 * the OAuth token endpoint only redeems single-use PKCE-bound codes and refresh tokens), closed where a
 * request sends mail, creates accounts or clients, or checks a guessable code.
 */
public enum AuthEndpoint {
    SIGN_IN("sign-in", 10, FailMode.OPEN, Method.POST, "/auth/sign-in", "/oauth/login"),
    SIGN_UP("sign-up", 5, FailMode.CLOSED, Method.POST, "/auth/sign-up"),
    MAGIC_LINK("magic-link", 3, FailMode.CLOSED, Method.POST, "/auth/magic-link"),
    EMAIL_OTP("email-otp", 5, FailMode.CLOSED, Method.POST, "/auth/email-otp"),
    /** Password-reset requests: each may send a mail. */
    PASSWORD_RESET("password-reset", 3, FailMode.CLOSED, Method.POST, "/auth/password-reset/request"),
    /** Setting one's address sends a verification mail. */
    EMAIL_CHANGE("email-change", 5, FailMode.CLOSED, Method.PUT, "/auth/email"),
    TOTP_VERIFY("totp-verify", 10, FailMode.CLOSED, Method.POST, "/auth/totp/verify", "/oauth/totp"),
    /**
     * Passkey sign-in: asking for a ceremony ({@code .../options}) and answering it, on the REST API and the login
     * page. Open when the store is down: a passkey cannot be guessed, and its users must be able to sign in.
     */
    PASSKEY_SIGN_IN("passkey-sign-in", 20, FailMode.OPEN, Method.POST, "/auth/passkeys/sign-in", "/oauth/passkey"),
    /** First-run setup: each request checks a setup token, and the first creates an account. */
    SETUP("setup", 5, FailMode.CLOSED, Method.POST, "/auth/setup"),
    OAUTH_TOKEN("oauth-token", 20, FailMode.OPEN, Method.POST, "/mcp/token", "/oauth/token"),
    /**
     * The authorization endpoint ({@code GET}): unauthenticated, and a request naming a client ID metadata document
     * makes Warden fetch it. Open when the store is down: the document cache and its failure cache still bound the
     * fetches, and users must be able to sign in.
     */
    OAUTH_AUTHORIZE("oauth-authorize", 30, FailMode.OPEN, Method.GET, "/mcp/authorize", "/oauth/authorize"),
    /** Token introspection: resource servers ask often, so the cap is high; it bounds guessing and fetch load. */
    OAUTH_INTROSPECT("oauth-introspect", 600, FailMode.OPEN, Method.POST, "/oauth/introspect"),
    /** Token revocation (RFC 7009). */
    OAUTH_REVOKE("oauth-revoke", 60, FailMode.OPEN, Method.POST, "/oauth/revoke"),
    /** Device authorization requests (RFC 8628): each one stores a pending code. */
    DEVICE_AUTHORIZATION("device-authorization", 10, FailMode.CLOSED, Method.POST, "/auth/device/code"),
    /** Backchannel authentication requests (OpenID CIBA): each one stores a request and asks a person. */
    BACKCHANNEL_AUTHENTICATION("backchannel-authentication", 10, FailMode.CLOSED, Method.POST, "/oauth/bc-authorize"),
    /** The device verification page's form: user codes are short, so guesses are few. */
    DEVICE_VERIFY("device-verify", 10, FailMode.CLOSED, Method.POST, "/auth/device/verify"),
    /**
     * Dynamic client registration: 1 per minute when anonymous registration is on, 5 otherwise; a
     * negative configured limit disables the cap (SPEC Limits).
     */
    REGISTRATION("registration", 5, FailMode.CLOSED, Method.POST, "/mcp/register", "/oauth/register");

    /** The window of every default: one minute. */
    public static final long DEFAULT_WINDOW_SECONDS = 60;

    private final String configName;
    private final int defaultLimit;
    private final FailMode defaultFailMode;
    private final Method method;
    private final List<String> paths;

    AuthEndpoint(String configName, int defaultLimit, FailMode defaultFailMode, Method method, String... paths) {
        this.configName = configName;
        this.defaultLimit = defaultLimit;
        this.defaultFailMode = defaultFailMode;
        this.method = method;
        this.paths = List.of(paths);
    }

    /** The HTTP method limited on {@link #paths()}. */
    public Method method() {
        return method;
    }

    /** The key under {@code warden.rate-limit.endpoints} and the limiter's name, e.g. {@code sign-in}. */
    public String configName() {
        return configName;
    }

    /** The HTTP paths limited ({@link #method()}, including sub-paths). */
    public List<String> paths() {
        return paths;
    }

    public FailMode defaultFailMode() {
        return defaultFailMode;
    }

    /** The SPEC's limit per IP per minute; for registration it depends on anonymous registration. */
    public int defaultLimit(boolean anonymousRegistration) {
        return this == REGISTRATION && anonymousRegistration ? 1 : defaultLimit;
    }

    /** The default rule. */
    public RateLimit defaultRule(boolean anonymousRegistration) {
        return RateLimit.perSeconds(defaultLimit(anonymousRegistration), DEFAULT_WINDOW_SECONDS);
    }

    /** The entry whose config name is {@code name}. */
    public static Optional<AuthEndpoint> byConfigName(String name) {
        for (AuthEndpoint e : values()) {
            if (e.configName.equals(name)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
