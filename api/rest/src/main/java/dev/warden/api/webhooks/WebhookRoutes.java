package dev.warden.api.webhooks;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.ListCursor;
import dev.warden.api.http.ListPaging;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.runtime.outbound.TargetGuard;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** HTTP surface of webhook endpoints (docs/webhooks.md), mounted at {@code /webhooks}. */
public final class WebhookRoutes implements DeclaredService {
    private static final Set<String> LIST_PARAMETERS = Set.of("limit", "cursor");

    private final WebhookService webhooks;
    private final TargetGuard guard;
    private final ListCursor cursors;
    private final long maxBodyBytes;

    public WebhookRoutes(WebhookService webhooks, TargetGuard guard, ListCursor cursors, long maxBodyBytes) {
        this.webhooks = webhooks;
        this.guard = guard;
        this.cursors = cursors;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", Access.scope("webhooks:write"), this::create)
                .get("/", Access.scope("webhooks:read"), this::list)
                .get("/{id}", Access.scope("webhooks:read"), this::get)
                .delete("/{id}", Access.scope("webhooks:write"), this::delete);
    }

    private void create(ServerRequest req, ServerResponse res) {
        var caller = AuthFilter.principal(req);
        WebhookService.owner(caller); // an agent gets its 403 before the URL is resolved
        WebhookService.NewWebhook request = WebhookJson.parseCreate(RequestReader.readObject(req, maxBodyBytes), guard);
        WebhookService.Created created = webhooks.create(caller, request);
        res.header("Location", "/webhooks/" + created.webhook().id());
        Responses.json(res, Status.CREATED_201, WebhookJson.render(created.webhook(), Optional.of(created.secret())));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Params.only(req, LIST_PARAMETERS);
        Optional<ListPaging.Request> paged = ListPaging.requested(req, cursors, "webhooks");
        List<Webhook> found;
        if (paged.isPresent()) {
            ListPaging.Page<Webhook> page = webhooks.page(AuthFilter.principal(req), paged.get());
            ListPaging.linkNext(req, res, cursors, paged.get(), page.next());
            found = page.items();
        } else {
            found = webhooks.list(AuthFilter.principal(req));
        }
        Responses.json(res, Status.OK_200, WebhookJson.renderAll(found));
    }

    private void get(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                WebhookJson.render(webhooks.get(AuthFilter.principal(req), id(req)), Optional.empty()));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        webhooks.delete(AuthFilter.principal(req), id(req));
        Responses.noContent(res);
    }

    private static String id(ServerRequest req) {
        return Params.path(req, "id", value -> Ids.require("id", value));
    }
}
