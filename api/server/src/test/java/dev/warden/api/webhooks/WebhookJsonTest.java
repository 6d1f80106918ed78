package dev.warden.api.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.WardenException;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.outbound.TargetGuard;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class WebhookJsonTest {
    /** Resolves every name to one fixed address, without I/O. */
    private static TargetGuard guardResolvingTo(int a, int b, int c, int d) {
        return new TargetGuard(
                host -> new InetAddress[] {
                    InetAddress.getByAddress(host, new byte[] {(byte) a, (byte) b, (byte) c, (byte) d})
                },
                false);
    }

    private static final TargetGuard PUBLIC = guardResolvingTo(93, 184, 215, 14);

    private static ObjectNode body(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void eventTypesDefaultToEveryTypeAndDuplicatesCollapseInOrder() {
        WebhookService.NewWebhook all = WebhookJson.parseCreate(body("{\"url\":\"https://hooks.example/x\"}"), PUBLIC);
        WebhookService.NewWebhook some = WebhookJson.parseCreate(body("""
                {"url":"https://hooks.example/x","eventTypes":["agent.revoked","agent.created","agent.revoked"],
                 "description":"ops"}"""), PUBLIC);

        assertThat(all.eventTypes()).isEmpty();
        assertThat(all.url()).isEqualTo(URI.create("https://hooks.example/x"));
        assertThat(some.eventTypes()).containsExactly(EventType.AGENT_REVOKED, EventType.AGENT_CREATED);
        assertThat(some.description()).hasValue("ops");
    }

    @Test
    void everyBadFieldIsNamedAtOnce() {
        assertThat(fields("""
                {"url":"ftp://hooks.example/x","eventTypes":["agent.created","agent.exploded",7],
                 "description":"","secret":"mine"}""", PUBLIC))
                .containsExactlyInAnyOrder("url", "eventTypes[1]", "eventTypes[2]", "description", "secret");
        assertThat(fields("{}", PUBLIC)).containsExactly("url");
        assertThat(fields("{\"url\":\"https://hooks.example/\",\"eventTypes\":\"audit\"}", PUBLIC))
                .containsExactly("eventTypes");
        assertThat(fields("{\"url\":\"https://u:p@hooks.example/\"}", PUBLIC)).containsExactly("url");
        assertThat(fields("{\"url\":\"not a url\"}", PUBLIC)).containsExactly("url");
    }

    @Test
    void aUrlResolvingToAPrivateAddressOrNothingIsRefused() {
        assertThat(fields("{\"url\":\"https://intranet.example/\"}", guardResolvingTo(10, 0, 0, 1)))
                .containsExactly("url");
        TargetGuard unresolvable = new TargetGuard(
                host -> {
                    throw new UnknownHostException(host);
                },
                false);
        assertThat(fields("{\"url\":\"https://nowhere.example/\"}", unresolvable))
                .containsExactly("url");
    }

    @Test
    void renderShowsTheSecretOnlyWhenGiven() {
        Webhook webhook = new Webhook(
                "whk_1",
                Webhook.Owner.admin(),
                URI.create("https://hooks.example/"),
                java.util.List.of(),
                java.util.Optional.empty(),
                WebhookStatus.ACTIVE,
                java.time.Instant.parse("2026-01-01T00:00:00Z"));

        assertThat(WebhookJson.render(webhook, java.util.Optional.empty()).has("secret"))
                .isFalse();
        assertThat(WebhookJson.render(webhook, java.util.Optional.of("whsec_x"))
                        .get("secret")
                        .asText())
                .isEqualTo("whsec_x");
        assertThat(WebhookJson.render(webhook, java.util.Optional.empty())
                        .get("createdAt")
                        .asText())
                .isEqualTo("2026-01-01T00:00:00.000Z");
    }

    private static java.util.List<String> fields(String json, TargetGuard guard) {
        WardenException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                WardenException.class, () -> WebhookJson.parseCreate(body(json), guard));
        assertThat(e).as("expected a 400 for " + json).isNotNull();
        assertThat(e.code().status()).isEqualTo(400);
        return e.errors().stream().map(FieldError::field).toList();
    }
}
