package dev.warden.api.oauth.token;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.auth.CredentialRevocations;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.runtime.db.Database;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The refresh grant's rotations written together (D196), against the real database: a batch decides each rotation
 * exactly as a rotation alone does on the same tokens (every outcome the grant tells a client apart, a token presented
 * twice in one batch included), each reading the token as the grant's other reads do; concurrent rotations share
 * statements, each caller getting its own answer; and the rotation reads every table by its key, however small the
 * tables were when it was planned (D197).
 */
class RefreshRotationsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.users(
                    UsersConfig.builder().argon2(1024, 1, 1).build())
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_TOKEN, 100_000, 60)
                    .endpoint(AuthEndpoint.REGISTRATION, 1000, 60)
                    .endpoint(AuthEndpoint.SIGN_UP, 1000, 60)
                    .build())
            .oauth(OAuthConfig.builder()
                    .keyEncryptionKey(Base64.getEncoder().encodeToString(new byte[32]))
                    .build()));

    static Http http;
    static OAuthDriver driver;
    static Database db;
    static GrantRepository grants;
    static String session;
    static String client;
    static String otherClient;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        driver = new OAuthDriver(http);
        db = Database.connect(
                warden.infra().jdbcUrl(), warden.config().postgres().pool());
        grants = new GrantRepository(db, new CredentialRevocations());
        session = driver.signUp("rotations_user");
        client = driver.registerPublicClient();
        otherClient = driver.registerPublicClient();
    }

    @AfterAll
    static void tearDown() {
        db.close();
    }

    /** A new grant (family) of {@code client} for the test's user, with scope {@code agents:read audit:read}. */
    static String refreshToken() {
        OAuthDriver.Pkce pkce = OAuthDriver.Pkce.fresh();
        Map<String, String> request = OAuthDriver.request(client, pkce, "st");
        request.put("scope", "agents:read audit:read");
        URI back = driver.authorize(session, request);
        Http.Response token = driver.exchange(client, OAuthDriver.query(back).get("code"), pkce);
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return token.json().get("refresh_token").asText();
    }

    /** What a case presents, built on fresh tokens each time it is asked (once per path compared). */
    interface Case {
        List<GrantRepository.Rotation> rotations(Instant now);
    }

    static GrantRepository.Rotation rotation(
            String token, String clientId, Optional<String> resource, Optional<List<String>> scopes, Instant now) {
        return new GrantRepository.Rotation(
                Tokens.hash(token),
                clientId,
                resource,
                scopes,
                Tokens.hash(Tokens.mint(TokenKind.REFRESH)),
                now.plus(Duration.ofDays(1)),
                now);
    }

    static GrantRepository.Rotation plain(String token, Instant now) {
        return rotation(token, client, Optional.empty(), Optional.empty(), now);
    }

    /** Every case the grant tells apart, each on tokens of its own. */
    static List<Case> cases() {
        String resource = http.baseUri().toString().replaceAll("/$", "");
        return List.of(
                now -> List.of(plain(refreshToken(), now)),
                now -> List.of(
                        rotation(refreshToken(), client, Optional.empty(), Optional.of(List.of("agents:read")), now)),
                now -> List.of(rotation(
                        refreshToken(), client, Optional.empty(), Optional.of(List.of("webhooks:write")), now)),
                now -> List.of(rotation(refreshToken(), client, Optional.empty(), Optional.of(List.of()), now)),
                now -> List.of(rotation(refreshToken(), client, Optional.of(resource), Optional.empty(), now)),
                now -> List.of(rotation(refreshToken(), client, Optional.of(resource + "/mcp"), Optional.empty(), now)),
                now -> List.of(rotation(refreshToken(), otherClient, Optional.empty(), Optional.empty(), now)),
                now -> List.of(plain(Tokens.mint(TokenKind.REFRESH), now)), // unknown
                now -> {
                    String used = refreshToken();
                    assertThat(grants.rotateRefreshToken(plain(used, now))
                                    .orElseThrow()
                                    .rotated())
                            .isTrue();
                    return List.of(plain(used, now));
                },
                now -> {
                    String revoked = refreshToken();
                    grants.revokeGrant(
                            grants.findRefreshToken(Tokens.hash(revoked), now)
                                    .orElseThrow()
                                    .grant()
                                    .id(),
                            "test",
                            now);
                    return List.of(plain(revoked, now));
                },
                now -> {
                    String expired = refreshToken();
                    warden.execute(
                            "UPDATE oauth_refresh_tokens SET expires_at = now() - interval '1 minute' WHERE token_hash = ?",
                            (Object) Tokens.hash(expired));
                    return List.of(plain(expired, now));
                },
                now -> {
                    String twice = refreshToken(); // presented by two requests at once
                    return List.of(plain(twice, now), plain(twice, now));
                });
    }

    /** An answer as the grant reads it: whether it rotated, and the token's state as read. */
    static String describe(Optional<GrantRepository.Rotated> answer) {
        return answer.map(a -> "rotated=" + a.rotated() + " " + state(a.token()))
                .orElse("unknown");
    }

    static String state(GrantRepository.RefreshToken token) {
        return "client=" + (token.grant().clientId().equals(client) ? "own" : "other")
                + " used=" + token.usedAt().isPresent()
                + " usable=" + token.grantUsable()
                + " live=" + token.expiresAt().isAfter(Instant.now())
                + " scope=" + token.grant().scope();
    }

    @Test
    void aBatchDecidesEachRotationAsARotationAloneDoes() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        List<String> alone = new ArrayList<>();
        List<GrantRepository.Rotation> batch = new ArrayList<>();
        for (Case c : cases()) {
            for (GrantRepository.Rotation rotation : c.rotations(now)) {
                // The rotation's test of a grant's standing is written twice (the function, GrantRepository's
                // reads): the token as the rotation reads it is the token as a read reads it just before.
                String read = grants.findRefreshToken(rotation.hash(), now)
                        .map(RefreshRotationsIT::state)
                        .orElse("unknown");
                String answer = describe(grants.rotateRefreshToken(rotation));
                assertThat(answer.replaceFirst("^rotated=\\w+ ", "")).isEqualTo(read);
                alone.add(answer);
            }
            batch.addAll(c.rotations(now));
        }
        List<String> together = grants.rotateRefreshTokens(batch).stream()
                .map(RefreshRotationsIT::describe)
                .toList();

        assertThat(together.subList(0, 11)).containsExactlyElementsOf(alone.subList(0, 11));
        // What the cases mean, so that both paths agreeing on something wrong fails too.
        assertThat(alone.subList(0, 11).stream().filter(a -> a.startsWith("rotated=true")))
                .as("plain, narrower scope, the grant's resource")
                .hasSize(3);
        assertThat(alone.get(0)).startsWith("rotated=true");
        assertThat(alone.get(1)).startsWith("rotated=true");
        assertThat(alone.get(4)).startsWith("rotated=true");
        assertThat(alone.get(7)).isEqualTo("unknown");
        assertThat(alone.get(6)).contains("client=own").startsWith("rotated=false"); // another client presented it
        assertThat(alone.get(8)).contains("used=true");
        assertThat(alone.get(9)).contains("usable=false");
        assertThat(alone.get(10)).contains("live=false");
        // A token presented twice: one rotation, and a reuse either way (the grant revokes the family on both). One
        // after the other, the second reads it used; in one batch, it reads it unused yet not spent by its own row, as
        // a use concurrent with another statement's does.
        String fresh = "client=own used=false usable=true live=true scope=agents:read audit:read";
        assertThat(alone.subList(11, 13))
                .containsExactly(
                        "rotated=true " + fresh,
                        "rotated=false client=own used=true usable=true live=true scope=agents:read audit:read");
        assertThat(together.subList(11, 13))
                .containsExactlyInAnyOrder("rotated=true " + fresh, "rotated=false " + fresh);

        // Each rotated token is spent and has exactly one successor; nothing else was written.
        for (int i = 0; i < batch.size(); i++) {
            GrantRepository.Rotation rotation = batch.get(i);
            boolean rotated = together.get(i).startsWith("rotated=true");
            assertThat(grants.findRefreshToken(rotation.nextHash(), now).isPresent())
                    .as("successor of case %d", i)
                    .isEqualTo(rotated);
        }
    }

    /**
     * The rotation plans once per connection and keeps its plan (D197). A plan made on small tables, freshly analysed,
     * would read them through rather than by key, and keep doing so once they are large: on tables of the test's own,
     * as small as that, a batch and a rotation alone read each table only by key. Counted in one transaction, rolled
     * back.
     */
    @Test
    void aRotationPlannedOnSmallTablesReadsThemByKey() {
        List<String> tables = List.of("user_sessions", "oauth_grants", "oauth_refresh_tokens");
        db.inTransaction(conn -> {
            try (Statement st = conn.createStatement()) {
                String schema;
                try (ResultSet rs = st.executeQuery("SELECT current_schema()")) {
                    rs.next();
                    schema = rs.getString(1);
                }
                st.execute("CREATE SCHEMA rotation_plan");
                for (String table : tables) {
                    st.execute("CREATE TABLE rotation_plan." + table + " (LIKE " + table + " INCLUDING ALL)");
                }
                st.execute("SET LOCAL search_path = rotation_plan, \"" + schema + "\"");
                st.execute("""
                        INSERT INTO user_sessions (id, user_id, token_hash, created_at, refreshed_at, expires_at,
                            absolute_expires_at)
                        SELECT 's' || n, 'u', sha256(convert_to('s' || n, 'UTF8')), now(), now(),
                            now() + interval '1 day', now() + interval '1 day' FROM generate_series(1, 20) n""");
                st.execute("""
                        INSERT INTO oauth_grants (id, client_id, user_id, session_id, scope, resource, created_at,
                            expires_at)
                        SELECT 'g' || n, 'c', 'u', 's' || n, 'agents:read', 'r', now(), now() + interval '1 day'
                        FROM generate_series(1, 20) n""");
                st.execute("""
                        INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at)
                        SELECT sha256(convert_to('t' || n, 'UTF8')), 'g' || n, now(), now() + interval '1 day'
                        FROM generate_series(1, 20) n""");
                st.execute("ANALYZE user_sessions, oauth_grants, oauth_refresh_tokens");
            }
            long[] before = scans(conn, tables);
            Instant now = Instant.now();
            assertThat(rotate(conn, now, "t1", "t2", "t3")).containsExactly(true, true, true);
            assertThat(rotate(conn, now, "t4")).containsExactly(true);
            assertThat(rotate(conn, now, "t1")).containsExactly(false); // spent just now
            long[] after = scans(conn, tables);
            assertThat(after[0] - before[0]).as("scans of whole tables").isZero();
            assertThat(after[1] - before[1]).as("reads by key").isPositive();
            conn.rollback();
            return null;
        });
    }

    /** Rotates the tokens named (each hashed as a token is) on {@code conn}: whether each rotated. */
    static List<Boolean> rotate(Connection conn, Instant now, String... names) throws SQLException {
        List<GrantRepository.Rotation> rotations = Arrays.stream(names)
                .map(name -> new GrantRepository.Rotation(
                        Tokens.hash(name),
                        "c",
                        Optional.empty(),
                        Optional.empty(),
                        Tokens.hash(name + "'"),
                        now.plus(Duration.ofHours(1)),
                        now))
                .toList();
        return GrantRepository.rotateRefreshTokens(conn, rotations).stream()
                .map(answer -> answer.orElseThrow().rotated())
                .toList();
    }

    /** Whole-table scans and reads by key of {@code tables} in this transaction so far. */
    static long[] scans(Connection conn, List<String> tables) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("""
                SELECT coalesce(sum(seq_scan), 0), coalesce(sum(idx_scan), 0) FROM pg_stat_xact_user_tables
                WHERE schemaname = 'rotation_plan' AND relname = ANY (?)""")) {
            ps.setArray(1, conn.createArrayOf("text", tables.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    @Test
    void concurrentRotationsShareStatementsAndEachCallerGetsItsOwnAnswer() throws Exception {
        int callers = 24;
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            tokens.add(refreshToken());
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        RefreshRotations rotations = new RefreshRotations(grants, 1, 64);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<GrantRepository.Rotated>>> answers = new ArrayList<>();
        List<GrantRepository.Rotation> asked = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String token : tokens) {
                GrantRepository.Rotation rotation = plain(token, now);
                asked.add(rotation);
                answers.add(pool.submit(() -> {
                    go.await();
                    return rotations.rotate(rotation);
                }));
            }
            go.countDown();
        }
        Set<String> grantsSeen = new HashSet<>();
        for (int i = 0; i < callers; i++) {
            GrantRepository.Rotated answer = answers.get(i).get().orElseThrow();
            assertThat(answer.rotated()).isTrue();
            // each caller's answer is its own token's: its family, and its successor stored
            assertThat(answer.token().grant().id())
                    .isEqualTo(grants.findRefreshToken(Tokens.hash(tokens.get(i)), now)
                            .orElseThrow()
                            .grant()
                            .id());
            assertThat(grants.findRefreshToken(asked.get(i).nextHash(), now)
                            .orElseThrow()
                            .grant()
                            .id())
                    .isEqualTo(answer.token().grant().id());
            grantsSeen.add(answer.token().grant().id());
        }
        assertThat(grantsSeen).hasSize(callers);
        assertThat(rotations.statements())
                .as("statements written for %d concurrent rotations, one running at a time", callers)
                .isLessThan(callers);
    }

    /** Through the token endpoint: concurrent refreshes of many families each get a working pair of their own. */
    @Test
    void concurrentRefreshesOverHttpEachRotateTheirOwnFamily() throws Exception {
        int callers = 16;
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            tokens.add(refreshToken());
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Http.Response>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String token : tokens) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return driver.token(
                            Map.of("grant_type", "refresh_token", "refresh_token", token, "client_id", client));
                }));
            }
            go.countDown();
        }
        for (Future<Http.Response> answer : answers) {
            Http.Response r = answer.get();
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode pair = r.json();
            assertThat(http.get("/agents", pair.get("access_token").asText()).status())
                    .isEqualTo(200);
            Http.Response again = driver.token(Map.of(
                    "grant_type",
                    "refresh_token",
                    "refresh_token",
                    pair.get("refresh_token").asText(),
                    "client_id",
                    client));
            assertThat(again.status()).as(again.body()).isEqualTo(200);
        }
    }
}
