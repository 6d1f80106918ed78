package dev.warden.api.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.console.ConsoleRows.DeliveryRow;
import dev.warden.api.console.ConsoleRows.WebhookRow;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.webhooks.WebhookService;
import dev.warden.api.webhooks.Webhooks;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Optional;

/**
 * The webhooks pages: the user's endpoints, a form to add one (read and checked as {@code POST /webhooks} reads its
 * body, the URL through the same outbound guard; the signing secret is shown once, on a page never cached), one
 * endpoint's latest deliveries, disabling and enabling it, and deleting it (confirmed; deliveries to it stop). Through {@link WebhookService}, so through the one access policy.
 */
final class WebhookPages implements DeclaredService {
    private final Webhooks webhooks;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final long maxBodyBytes;

    WebhookPages(Webhooks webhooks, ConsoleSession session, ConsolePages pages, long maxBodyBytes) {
        this.webhooks = webhooks;
        this.session = session;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/webhooks", Access.open(), this::list)
                .post("/webhooks", Access.open(), this::create)
                .get("/webhooks/{id}", Access.open(), this::webhook)
                .post("/webhooks/{id}/disable", Access.open(), (req, res) -> setActive(req, res, false))
                .post("/webhooks/{id}/enable", Access.open(), (req, res) -> setActive(req, res, true))
                .get("/webhooks/{id}/delete", Access.open(), this::confirm)
                .post("/webhooks/{id}/delete", Access.open(), this::delete);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Map<String, Object> params = session.params(req, res, user.get(), "webhooks");
        params.put(
                "webhooks",
                webhooks.service().list(user.get().principal()).stream()
                        .map(WebhookRow::of)
                        .toList());
        pages.send(res, Status.OK_200, "console/webhooks.jte", params);
    }

    /** Adds an endpoint from the form's {@code url}, {@code eventTypes} (comma-separated) and {@code description}. */
    private void create(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res, form);
        if (user.isEmpty()) {
            return;
        }
        ObjectNode body = Json.mapper().createObjectNode();
        body.put("url", form.getOrDefault("url", ""));
        ArrayNode types = body.putArray("eventTypes");
        for (String type : form.getOrDefault("eventTypes", "").split(",")) {
            if (!type.isBlank()) {
                types.add(type.strip());
            }
        }
        String description = form.getOrDefault("description", "");
        if (!description.isBlank()) {
            body.put("description", description);
        }
        WebhookService.Created created = webhooks.service()
                .create(user.get().principal(), webhooks.parseCreate(user.get().principal(), body));
        Map<String, Object> params = session.params(req, res, user.get(), "webhooks");
        params.put("webhook", WebhookRow.of(created.webhook()));
        params.put("secret", created.secret());
        pages.send(res, Status.OK_200, "console/webhookSecret.jte", params);
    }

    /** One endpoint: what it receives, its latest deliveries, and disabling or enabling it. */
    private void webhook(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String id = id(req);
        Map<String, Object> params = session.params(req, res, user.get(), "webhooks");
        params.put("webhook", WebhookRow.of(webhooks.service().get(user.get().principal(), id)));
        params.put(
                "deliveries",
                webhooks.service().deliveries(user.get().principal(), id).stream()
                        .map(DeliveryRow::of)
                        .toList());
        pages.send(res, Status.OK_200, "console/webhook.jte", params);
    }

    /** Disables or enables the endpoint (CSRF token), then back to its page. Reversible: no confirmation. */
    private void setActive(ServerRequest req, ServerResponse res, boolean active) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        String id = id(req);
        webhooks.service().setActive(user.get().principal(), id, active);
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/webhooks/" + id);
    }

    private void confirm(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Map<String, Object> params = session.params(req, res, user.get(), "webhooks");
        params.put("webhook", WebhookRow.of(webhooks.service().get(user.get().principal(), id(req))));
        pages.send(res, Status.OK_200, "console/deleteWebhook.jte", params);
    }

    private void delete(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res);
        if (user.isEmpty()) {
            return;
        }
        webhooks.service().delete(user.get().principal(), id(req));
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/webhooks");
    }

    private static String id(ServerRequest req) {
        return Params.path(req, "id", value -> Ids.require("id", value));
    }
}
