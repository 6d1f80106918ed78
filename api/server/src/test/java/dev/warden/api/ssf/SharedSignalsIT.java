package dev.warden.api.ssf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.AgentOAuth;
import dev.warden.api.oauth.OAuthDriver;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Shared Signals transmitter through real HTTP, fed from the real {@code warden.events} (docs/shared-signals.md):
 * a receiver that authenticates with client credentials manages its streams, gets its owner's signals pushed
 * (verified by {@link SetReceiver}) or polls them (RFC 8936), keeps them through an outage, and never sees another
 * owner's.
 */
class SharedSignalsIT {
    static final String CAEP = "https://schemas.openid.net/secevent/caep/event-type/";
    static final String RISC = "https://schemas.openid.net/secevent/risc/event-type/";
    static final String SSF_RW = "[{\"resource\":\"ssf\",\"actions\":[\"read\",\"write\"]}]";
    static final String PASSWORD = "a long enough password";

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.webhooks(WebhooksConfig.builder().allowPrivateTargets(true).build())
                    .users(UsersConfig.builder()
                            .argon2(1024, 1, 1)
                            .lockout(3, Duration.ofMinutes(15), Duration.ofMinutes(15))
                            .build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.OAUTH_TOKEN, 10_000, 60)
                            .build()));

    static Http http;
    static String issuer;
    static AgentOAuth fixture;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        issuer = http.baseUri().toString().replaceAll("/$", "");
        fixture = AgentOAuth.withRuntimeClient(http, "ssf_user_");
    }

    /** A person, a receiver agent of theirs and its client-credentials token with both SSF scopes. */
    record Receiver(AgentOAuth.User owner, String id, String token) {}

    static Receiver receiver() {
        AgentOAuth.User owner = fixture.newUser();
        JsonNode agent = fixture.agent(owner.session(), owner.id(), "service", SSF_RW, "");
        String id = agent.get("id").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", owner.session()).status())
                .isEqualTo(201);
        Map<String, String> form = new LinkedHashMap<>(Map.of("grant_type", "client_credentials"));
        form.put("scope", "ssf:read ssf:write");
        String basic = Base64.getEncoder()
                .encodeToString((id + ":" + agent.get("token").asText()).getBytes(StandardCharsets.UTF_8));
        Http.Response token = http.send(http.builder("/oauth/token", null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(OAuthDriver.encode(form))));
        assertThat(token.status()).as(token.body()).isEqualTo(200);
        return new Receiver(owner, id, token.json().get("access_token").asText());
    }

    static String agentOf(AgentOAuth.User owner) {
        return fixture.agent(owner.session(), owner.id(), "autonomous", AgentOAuth.READ_AGENTS, "")
                .get("id")
                .asText();
    }

    static JWKSet jwks() {
        try {
            return JWKSet.parse(http.get("/oauth/jwks", null).body());
        } catch (ParseException e) {
            throw new AssertionError(e);
        }
    }

    static String push(SetReceiver to, String authorization, String... events) {
        StringBuilder requested = new StringBuilder();
        for (String e : events) {
            requested
                    .append(requested.isEmpty() ? "" : ",")
                    .append('"')
                    .append(e)
                    .append('"');
        }
        return "{\"delivery\":{\"method\":\"urn:ietf:rfc:8935\",\"endpoint_url\":\"" + to.url()
                + "\",\"authorization_header\":\"" + authorization + "\"},\"events_requested\":[" + requested
                + "],\"description\":\"test\"}";
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    static String subject(JWTClaimsSet claims) {
        try {
            Map<String, Object> subId = claims.getJSONObjectClaim("sub_id");
            assertThat(subId.get("format")).isEqualTo("iss_sub");
            assertThat(subId.get("iss")).isEqualTo(issuer);
            return (String) subId.get("sub");
        } catch (ParseException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theMetadataNamesTheEndpointsTheKeysAndBothDeliveryMethods() {
        JsonNode doc = http.get("/.well-known/ssf-configuration", null).json();
        assertThat(doc.get("spec_version").asText()).isEqualTo("1_0");
        assertThat(doc.get("issuer").asText()).isEqualTo(issuer);
        assertThat(doc.get("jwks_uri").asText()).isEqualTo(issuer + "/oauth/jwks");
        assertThat(doc.get("delivery_methods_supported").toString())
                .isEqualTo("[\"urn:ietf:rfc:8935\",\"urn:ietf:rfc:8936\"]");
        assertThat(doc.get("configuration_endpoint").asText()).isEqualTo(issuer + "/ssf/streams");
        assertThat(doc.get("status_endpoint").asText()).isEqualTo(issuer + "/ssf/status");
        assertThat(doc.get("add_subject_endpoint").asText()).isEqualTo(issuer + "/ssf/subjects/add");
        assertThat(doc.get("remove_subject_endpoint").asText()).isEqualTo(issuer + "/ssf/subjects/remove");
        assertThat(doc.get("verification_endpoint").asText()).isEqualTo(issuer + "/ssf/verify");
        assertThat(doc.at("/authorization_schemes/0/spec_urn").asText()).isEqualTo("urn:ietf:rfc:6749");
        assertThat(doc.get("default_subjects").asText()).isEqualTo("ALL");
    }

    @Test
    void aReceiverGetsItsOwnersAgentSignalsPushedSignedAndNobodyElses() throws Exception {
        Receiver r = receiver();
        Receiver stranger = receiver();
        try (SetReceiver to = new SetReceiver(issuer, r.id(), "Bearer receiver-secret", SharedSignalsIT::jwks)) {
            Http.Response created = http.post(
                    "/ssf/streams",
                    r.token(),
                    push(
                            to,
                            "Bearer receiver-secret",
                            CAEP + "session-revoked",
                            CAEP + "credential-change",
                            CAEP + "token-claims-change",
                            "https://example.com/not-an-event-warden-sends"));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            JsonNode stream = created.json();
            String streamId = stream.get("stream_id").asText();
            assertThat(stream.get("iss").asText()).isEqualTo(issuer);
            assertThat(stream.get("aud").asText())
                    .as("the receiver's client id")
                    .isEqualTo(r.id());
            assertThat(stream.at("/delivery/endpoint_url").asText()).isEqualTo(to.url());
            assertThat(stream.toString()).as("the secret header is never shown").doesNotContain("receiver-secret");
            assertThat(stream.get("events_delivered").toString())
                    .isEqualTo("[\"" + CAEP + "session-revoked\",\"" + CAEP + "credential-change\",\"" + CAEP
                            + "token-claims-change\"]");
            assertThat(stream.get("events_supported").size()).isEqualTo(5);

            String mine = agentOf(r.owner());
            String theirs = agentOf(stranger.owner());
            String delegate = agentOf(r.owner());
            assertThat(http.post("/agents/" + mine + "/rotate", r.owner().session())
                            .status())
                    .isEqualTo(200);
            assertThat(http.patch(
                                    "/agents/" + mine,
                                    r.owner().session(),
                                    "{\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\",\"list\"]}]}")
                            .status())
                    .isEqualTo(200);
            assertThat(http.patch("/agents/" + mine, r.owner().session(), "{\"name\":\"renamed\"}")
                            .status())
                    .as("a rename changes no token")
                    .isEqualTo(200);
            Http.Response delegation = http.post(
                    "/delegations",
                    r.owner().session(),
                    "{\"fromAgent\":\"" + mine + "\",\"toAgent\":\"" + delegate
                            + "\",\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
            assertThat(delegation.status()).as(delegation.body()).isEqualTo(201);
            assertThat(http.post("/agents/" + mine + "/suspend", r.owner().session())
                            .status())
                    .isEqualTo(200);
            assertThat(http.delete("/agents/" + theirs, stranger.owner().session())
                            .status())
                    .isEqualTo(204);
            assertThat(http.delete("/agents/" + mine, r.owner().session()).status())
                    .isEqualTo(204);

            await(() -> to.accepted.size() >= 6, "six signals pushed");
            Thread.sleep(500);
            assertThat(to.problems).isEmpty();
            assertThat(to.types())
                    .as("in the order they happened; the rename and the other owner's agent are not signals; revoking"
                            + " the source revokes its delegation")
                    .containsExactly(
                            CAEP + "credential-change",
                            CAEP + "token-claims-change",
                            CAEP + "token-claims-change",
                            CAEP + "session-revoked",
                            CAEP + "session-revoked",
                            CAEP + "token-claims-change");
            List<String> subjects =
                    to.accepted.stream().map(SharedSignalsIT::subject).toList();
            assertThat(subjects).containsExactly(mine, mine, delegate, mine, mine, delegate);
            assertThat(SetReceiver.event(to.accepted.get(5)).get("claims").toString())
                    .contains("change=revoked");
            assertThat(SetReceiver.event(to.accepted.get(0)))
                    .containsEntry("credential_type", "api-key")
                    .containsEntry("change_type", "update")
                    .containsEntry("initiating_entity", "admin");
            assertThat(SetReceiver.event(to.accepted.get(1)).get("claims").toString())
                    .contains("warden_permissions");
            assertThat(SetReceiver.event(to.accepted.get(2)).get("claims").toString())
                    .contains(delegation.json().get("id").asText())
                    .contains(mine);
            assertThat(SetReceiver.event(to.accepted.get(3)).get("reason_admin").toString())
                    .contains("agent suspended");
            assertThat(SetReceiver.event(to.accepted.get(4)).get("reason_admin").toString())
                    .contains("agent revoked");
            assertThat(new HashSet<>(
                            to.accepted.stream().map(JWTClaimsSet::getJWTID).toList()))
                    .as("every jti unique")
                    .hasSize(6);

            // Verification: a verification event with the receiver's state, through the stream's own delivery.
            Http.Response verify =
                    http.post("/ssf/verify", r.token(), "{\"stream_id\":\"" + streamId + "\",\"state\":\"state-1\"}");
            assertThat(verify.status()).as(verify.body()).isEqualTo(204);
            await(() -> to.accepted.size() == 7, "the verification event");
            JWTClaimsSet verification = to.accepted.get(6);
            assertThat(SetReceiver.type(verification))
                    .isEqualTo("https://schemas.openid.net/secevent/ssf/event-type/verification");
            assertThat(SetReceiver.event(verification)).containsEntry("state", "state-1");
            assertThat(verification.getJSONObjectClaim("sub_id"))
                    .containsEntry("format", "opaque")
                    .containsEntry("id", streamId);
            Http.Response again = http.post("/ssf/verify", r.token(), "{\"stream_id\":\"" + streamId + "\"}");
            assertThat(again.status()).isEqualTo(429);
            assertThat(again.json().get("code").asText()).isEqualTo("verification_too_soon");
            assertThat(again.header("Retry-After")).isPresent();
        }
    }

    @Test
    void anOutageLosesNothingAndAReceiversRefusalDropsOnlyThatToken() throws Exception {
        Receiver r = receiver();
        try (SetReceiver to = new SetReceiver(issuer, r.id(), "Bearer x", SharedSignalsIT::jwks)) {
            assertThat(http.post("/ssf/streams", r.token(), push(to, "Bearer x", CAEP + "credential-change"))
                            .status())
                    .isEqualTo(201);
            String agent = agentOf(r.owner());
            to.mode(SetReceiver.Mode.FAIL_503);
            rotate(r, agent, 2);
            Thread.sleep(1500);
            to.down();
            rotate(r, agent, 2);
            Thread.sleep(1500);
            assertThat(to.accepted).as("nothing got through while it failed").isEmpty();
            to.up();
            to.mode(SetReceiver.Mode.ACCEPT);
            await(() -> to.accepted.size() == 4, "the four rotations made during the outage");
            List<Long> times = new ArrayList<>();
            for (JWTClaimsSet claims : to.accepted) {
                times.add(((Number) SetReceiver.event(claims).get("event_timestamp")).longValue());
            }
            assertThat(times).as("in order").isSorted();
            assertThat(to.duplicates).isEmpty();

            // A 400 refuses that token: it is dropped and the next goes on.
            to.mode(SetReceiver.Mode.REFUSE_400);
            rotate(r, agent, 1);
            Thread.sleep(1500);
            to.mode(SetReceiver.Mode.ACCEPT);
            rotate(r, agent, 1);
            await(() -> to.accepted.size() == 5, "the token after the refused one");
            Thread.sleep(500);
            assertThat(to.accepted).hasSize(5);
        }
    }

    static void rotate(Receiver r, String agent, int times) {
        for (int i = 0; i < times; i++) {
            assertThat(http.post("/agents/" + agent + "/rotate", r.owner().session())
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void aPolledStreamAnswersAcknowledgesHoldsWhilePausedAndLongPolls() throws Exception {
        Receiver r = receiver();
        Http.Response created = http.post(
                "/ssf/streams",
                r.token(),
                "{\"delivery\":{\"method\":\"urn:ietf:rfc:8936\"},\"events_requested\":[\"" + CAEP
                        + "session-revoked\",\"" + RISC + "account-disabled\"]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String streamId = created.json().get("stream_id").asText();
        String pollUrl = created.json().at("/delivery/endpoint_url").asText();
        assertThat(pollUrl).isEqualTo(issuer + "/ssf/poll/" + streamId);
        String poll = "/ssf/poll/" + streamId;

        String agent = agentOf(r.owner());
        assertThat(http.post("/agents/" + agent + "/suspend", r.owner().session())
                        .status())
                .isEqualTo(200);
        Map<String, String> sets = awaitSets(r, poll, 1);
        String jti = sets.keySet().iterator().next();
        JWTClaimsSet claims = verified(sets.get(jti), r.id());
        assertThat(claims.getJWTID()).isEqualTo(jti);
        assertThat(SetReceiver.type(claims)).isEqualTo(CAEP + "session-revoked");
        assertThat(subject(claims)).isEqualTo(agent);
        assertThat(pollOnce(r, poll, "{\"returnImmediately\":true}").size())
                .as("unacknowledged: answered again")
                .isEqualTo(1);
        assertThat(pollOnce(r, poll, "{\"returnImmediately\":true,\"ack\":[\"" + jti + "\"]}")
                        .size())
                .as("acknowledged: gone")
                .isZero();

        // Three failed sign-ins lock the owner's account: RISC account-disabled about the person.
        String username = http.get("/auth/session", r.owner().session())
                .json()
                .at("/user/username")
                .asText();
        for (int i = 0; i < 3; i++) {
            assertThat(http.post(
                                    "/auth/sign-in",
                                    null,
                                    "{\"username\":\"" + username + "\",\"password\":\"wrong password " + i + "\"}")
                            .status())
                    .isEqualTo(401);
        }
        Map<String, String> locked = awaitSets(r, poll, 1);
        JWTClaimsSet disabled = verified(locked.values().iterator().next(), r.id());
        assertThat(SetReceiver.type(disabled)).isEqualTo(RISC + "account-disabled");
        assertThat(subject(disabled)).isEqualTo(r.owner().id());
        pollOnce(r, poll, "{\"returnImmediately\":true,\"maxEvents\":0,\"ack\":[\"" + disabled.getJWTID() + "\"]}");

        // Paused: held, not answered; enabled again: answered.
        Http.Response paused = http.post(
                "/ssf/status",
                r.token(),
                "{\"stream_id\":\"" + streamId + "\",\"status\":\"paused\",\"reason\":\"maintenance\"}");
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        assertThat(paused.json().get("status").asText()).isEqualTo("paused");
        assertThat(http.get("/ssf/status?stream_id=" + streamId, r.token())
                        .json()
                        .get("reason")
                        .asText())
                .isEqualTo("maintenance");
        String second = agentOf(r.owner());
        assertThat(http.delete("/agents/" + second, r.owner().session()).status())
                .isEqualTo(204);
        Thread.sleep(1500);
        assertThat(pollOnce(r, poll, "{\"returnImmediately\":true}").size()).isZero();
        assertThat(pendingTokens()).as("held while paused, and counted").isGreaterThanOrEqualTo(1.0);
        assertThat(http.post("/ssf/status", r.token(), "{\"stream_id\":\"" + streamId + "\",\"status\":\"enabled\"}")
                        .status())
                .isEqualTo(200);
        Map<String, String> held = awaitSets(r, poll, 1);
        assertThat(subject(verified(held.values().iterator().next(), r.id()))).isEqualTo(second);
        pollOnce(r, poll, "{\"returnImmediately\":true,\"maxEvents\":0,\"ack\":" + jsonArray(held.keySet()) + "}");

        // A long poll waits for the next token and answers as soon as it is there.
        String third = agentOf(r.owner());
        CompletableFuture<JsonNode> waiting = CompletableFuture.supplyAsync(
                () -> http.post(poll, r.token(), "{}").json());
        Thread.sleep(700);
        assertThat(waiting).as("still waiting").isNotDone();
        assertThat(http.delete("/agents/" + third, r.owner().session()).status())
                .isEqualTo(204);
        JsonNode answer = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answer.get("sets").size()).isEqualTo(1);
        assertThat(answer.get("moreAvailable").asBoolean()).isFalse();

        // Removing a subject stops its signals; adding it back resumes them.
        pollOnce(
                r,
                poll,
                "{\"returnImmediately\":true,\"maxEvents\":0,\"ack\":"
                        + jsonArray(iterable(answer.get("sets").fieldNames())) + "}");
        String fourth = agentOf(r.owner());
        String fifth = agentOf(r.owner());
        assertThat(http.post(
                                "/ssf/subjects/remove",
                                r.token(),
                                "{\"stream_id\":\"" + streamId + "\",\"subject\":{\"format\":\"iss_sub\",\"iss\":\""
                                        + issuer + "\",\"sub\":\"" + fourth + "\"}}")
                        .status())
                .isEqualTo(204);
        assertThat(http.post("/agents/" + fourth + "/suspend", r.owner().session())
                        .status())
                .isEqualTo(200);
        assertThat(http.post("/agents/" + fifth + "/suspend", r.owner().session())
                        .status())
                .isEqualTo(200);
        Map<String, String> after = awaitSets(r, poll, 1);
        Thread.sleep(800);
        after = pollSets(r, poll);
        assertThat(after).hasSize(1);
        assertThat(subject(verified(after.values().iterator().next(), r.id()))).isEqualTo(fifth);
        pollOnce(r, poll, "{\"returnImmediately\":true,\"maxEvents\":0,\"ack\":" + jsonArray(after.keySet()) + "}");
        assertThat(http.post(
                                "/ssf/subjects/add",
                                r.token(),
                                "{\"stream_id\":\"" + streamId + "\",\"subject\":{\"format\":\"opaque\",\"id\":\""
                                        + fourth + "\"},\"verified\":true}")
                        .status())
                .isEqualTo(200);
        assertThat(http.delete("/agents/" + fourth, r.owner().session()).status())
                .isEqualTo(204);
        assertThat(subject(verified(awaitSets(r, poll, 1).values().iterator().next(), r.id())))
                .isEqualTo(fourth);
    }

    @Test
    void streamsAreTheirManagersAloneAndEveryFieldIsChecked() {
        Receiver r = receiver();
        Receiver other = receiver();
        Http.Response created = http.post(
                "/ssf/streams", r.token(), "{\"delivery\":{\"method\":\"urn:ietf:rfc:8936\"},\"description\":\"a\"}");
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().get("stream_id").asText();
        assertThat(created.json().get("events_requested").size())
                .as("absent: every type Warden sends")
                .isEqualTo(5);

        for (String path : List.of("/ssf/streams?stream_id=" + id, "/ssf/status?stream_id=" + id)) {
            Http.Response foreign = http.get(path, other.token());
            assertThat(foreign.status()).as(path).isEqualTo(404);
            assertThat(foreign.json().get("code").asText()).isEqualTo("stream_not_found");
        }
        assertThat(http.post("/ssf/poll/" + id, other.token(), "{\"returnImmediately\":true}")
                        .status())
                .isEqualTo(404);
        assertThat(http.delete("/ssf/streams?stream_id=" + id, other.token()).status())
                .isEqualTo(404);
        assertThat(http.get("/ssf/streams", other.token()).json().size()).isZero();
        assertThat(http.get("/ssf/streams", r.token()).json().size()).isEqualTo(1);
        assertThat(http.get("/ssf/streams", warden.adminToken()).json().toString())
                .as("the administrator sees every stream")
                .contains(id);
        assertThat(http.get("/ssf/streams", r.owner().session()).json().size())
                .as("a person sees the streams they created, not their agent's")
                .isZero();

        // A token without the scopes: 403.
        Http.Response unscoped = http.get("/ssf/streams", fixture.userToken(r.owner(), "agents:read"));
        assertThat(unscoped.status()).isEqualTo(403);

        // PATCH changes what it names; the method cannot change; PUT replaces.
        Http.Response patched = http.patch(
                "/ssf/streams",
                r.token(),
                "{\"stream_id\":\"" + id + "\",\"events_requested\":[\"" + CAEP + "session-revoked\"]}");
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);
        assertThat(patched.json().get("events_delivered").toString()).isEqualTo("[\"" + CAEP + "session-revoked\"]");
        assertThat(patched.json().get("description").asText()).isEqualTo("a");
        Http.Response replaced =
                http.put("/ssf/streams", r.token(), "{\"stream_id\":\"" + id + "\",\"iss\":\"ignored\"}");
        assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
        assertThat(replaced.json().has("description")).isFalse();
        assertThat(replaced.json().get("events_requested").size()).isEqualTo(5);
        assertField(
                http.patch(
                        "/ssf/streams",
                        r.token(),
                        "{\"stream_id\":\"" + id + "\",\"delivery\":{\"method\":\"urn:ietf:rfc:8935\","
                                + "\"endpoint_url\":\"https://example.com/x\"}}"),
                "delivery.method");

        assertField(
                http.post("/ssf/streams", r.token(), "{\"delivery\":{\"method\":\"smoke-signals\"}}"),
                "delivery.method");
        assertField(
                http.post("/ssf/streams", r.token(), "{\"delivery\":{\"method\":\"urn:ietf:rfc:8935\"}}"),
                "delivery.endpoint_url");
        assertField(
                http.post(
                        "/ssf/streams",
                        r.token(),
                        "{\"delivery\":{\"method\":\"urn:ietf:rfc:8935\",\"endpoint_url\":\"ftp://x\"}}"),
                "delivery.endpoint_url");
        assertField(http.post("/ssf/streams", r.token(), "{\"events_requested\":[7]}"), "events_requested[0]");
        assertField(http.post("/ssf/streams", r.token(), "{\"surprise\":1}"), "surprise");
        assertField(http.post("/ssf/status", r.token(), "{\"stream_id\":\"" + id + "\",\"status\":\"on\"}"), "status");
        assertField(
                http.post(
                        "/ssf/subjects/remove",
                        r.token(),
                        "{\"stream_id\":\"" + id + "\",\"subject\":{\"format\":\"email\"}}"),
                "subject");
        assertField(http.post("/ssf/poll/" + id, r.token(), "{\"maxEvents\":100000}"), "maxEvents");
        assertField(http.post("/ssf/poll/" + id, r.token(), "{\"ack\":[1]}"), "ack[0]");
        assertField(http.get("/ssf/streams?stream_id=%20x", r.token()), "stream_id");

        assertThat(http.delete("/ssf/streams?stream_id=" + id, r.token()).status())
                .isEqualTo(204);
        assertThat(http.get("/ssf/streams?stream_id=" + id, r.token()).status()).isEqualTo(404);
    }

    @Test
    void aRevokedReceiversStreamsEndWithIt() throws Exception {
        Receiver r = receiver();
        String id = http.post("/ssf/streams", r.token(), "{}")
                .json()
                .get("stream_id")
                .asText();
        assertThat(http.get("/ssf/streams?stream_id=" + id, warden.adminToken()).status())
                .isEqualTo(200);
        assertThat(http.delete("/agents/" + r.id(), r.owner().session()).status())
                .isEqualTo(204);
        await(
                () -> http.get("/ssf/streams?stream_id=" + id, warden.adminToken())
                                .status()
                        == 404,
                "the revoked receiver's stream is gone");
    }

    /** {@code warden_ssf_pending_tokens} as the metrics scrape shows it. */
    static double pendingTokens() {
        for (String line : http.get("/observe/metrics", null).body().split("\n")) {
            if (line.startsWith("warden_ssf_pending_tokens ")) {
                return Double.parseDouble(line.substring(line.indexOf(' ') + 1));
            }
        }
        throw new AssertionError("no warden_ssf_pending_tokens in the scrape");
    }

    static void assertField(Http.Response r, String field) {
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("errors").toString()).as(r.body()).contains("\"field\":\"" + field + "\"");
    }

    static JWTClaimsSet verified(String token, String audience) throws Exception {
        SignedJWT jwt = SignedJWT.parse(token);
        assertThat(jwt.getHeader().getType().getType()).isEqualTo("secevent+jwt");
        ECKey key = (ECKey) jwks().getKeyByKeyId(jwt.getHeader().getKeyID());
        assertThat(jwt.verify(new ECDSAVerifier(key))).isTrue();
        JWTClaimsSet claims = jwt.getJWTClaimsSet();
        assertThat(claims.getIssuer()).isEqualTo(issuer);
        assertThat(claims.getAudience()).containsExactly(audience);
        return claims;
    }

    static JsonNode pollOnce(Receiver r, String poll, String body) {
        Http.Response res = http.post(poll, r.token(), body);
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json().get("sets");
    }

    static Map<String, String> pollSets(Receiver r, String poll) {
        Map<String, String> sets = new LinkedHashMap<>();
        pollOnce(r, poll, "{\"returnImmediately\":true}")
                .properties()
                .forEach(e -> sets.put(e.getKey(), e.getValue().asText()));
        return sets;
    }

    static Map<String, String> awaitSets(Receiver r, String poll, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, String> sets = pollSets(r, poll);
        while (sets.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
            sets = pollSets(r, poll);
        }
        assertThat(sets).hasSize(n);
        return sets;
    }

    static <T> Iterable<T> iterable(java.util.Iterator<T> it) {
        List<T> all = new ArrayList<>();
        it.forEachRemaining(all::add);
        return all;
    }

    static String jsonArray(Iterable<String> items) {
        StringBuilder s = new StringBuilder("[");
        for (String item : items) {
            s.append(s.length() == 1 ? "" : ",").append('"').append(item).append('"');
        }
        return s.append(']').toString();
    }
}
