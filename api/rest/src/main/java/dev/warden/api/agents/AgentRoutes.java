package dev.warden.api.agents;

import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.ListCursor;
import dev.warden.api.http.ListPaging;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.TenantId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** HTTP surface of agents (SPEC: Endpoints, Agents), mounted at {@code /agents}. */
public final class AgentRoutes implements DeclaredService {
    private static final Access READ = Access.scope("agents:read");
    private static final Access WRITE = Access.scope("agents:write");

    private static final Set<String> LIST_PARAMETERS = Set.of("status", "type", "tenantId", "limit", "cursor");

    private final AgentService agents;
    private final ListCursor cursors;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public AgentRoutes(AgentService agents, ListCursor cursors, InstantSource clock, long maxBodyBytes) {
        this.agents = agents;
        this.cursors = cursors;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/", WRITE, this::create)
                .get("/", READ, this::list)
                .get("/{id}", READ, this::get)
                .patch("/{id}", WRITE, this::update)
                .delete("/{id}", WRITE, this::revoke)
                .post("/{id}/rotate", WRITE, this::rotate)
                .post("/{id}/suspend", WRITE, this::suspend)
                .post("/{id}/resume", WRITE, this::resume);
    }

    private void create(ServerRequest req, ServerResponse res) {
        AgentService.NewAgent request = AgentJson.parseCreate(RequestReader.readObject(req, maxBodyBytes));
        AgentService.Issued issued = agents.create(AuthFilter.principal(req), request);
        res.header("Location", "/agents/" + issued.agent().id());
        Responses.json(
                res,
                Status.CREATED_201,
                AgentJson.render(issued.agent(), clock.instant(), Optional.of(issued.token())));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Params.only(req, LIST_PARAMETERS);
        AgentService.Query query = new AgentService.Query(
                Params.queryEnum(req, "status", AgentStatus.class),
                Params.queryEnum(req, "type", AgentType.class),
                Params.query(req, "tenantId", TenantId::of));
        String list = "agents:" + query.status().map(AgentStatus::wireName).orElse("") + ":"
                + query.type().map(AgentType::wireName).orElse("") + ":"
                + query.tenantId().map(TenantId::value).orElse("");
        Optional<ListPaging.Request> paged = ListPaging.requested(req, cursors, list);
        List<Agent> found;
        if (paged.isPresent()) {
            ListPaging.Page<Agent> page = agents.page(AuthFilter.principal(req), query, paged.get());
            ListPaging.linkNext(req, res, cursors, paged.get(), page.next());
            found = page.items();
        } else {
            found = agents.list(AuthFilter.principal(req), query);
        }
        Responses.json(res, Status.OK_200, AgentJson.renderAll(found, clock.instant()));
    }

    private void get(ServerRequest req, ServerResponse res) {
        send(res, agents.get(AuthFilter.principal(req), id(req)));
    }

    private void update(ServerRequest req, ServerResponse res) {
        AgentId id = id(req);
        AgentService.Patch patch = AgentJson.parsePatch(RequestReader.readObject(req, maxBodyBytes));
        send(res, agents.update(AuthFilter.principal(req), id, patch));
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        agents.revoke(AuthFilter.principal(req), id(req));
        Responses.noContent(res);
    }

    private void rotate(ServerRequest req, ServerResponse res) {
        AgentService.Issued issued = agents.rotate(AuthFilter.principal(req), id(req));
        Responses.json(
                res, Status.OK_200, AgentJson.render(issued.agent(), clock.instant(), Optional.of(issued.token())));
    }

    private void suspend(ServerRequest req, ServerResponse res) {
        send(res, agents.suspend(AuthFilter.principal(req), id(req)));
    }

    private void resume(ServerRequest req, ServerResponse res) {
        send(res, agents.resume(AuthFilter.principal(req), id(req)));
    }

    private void send(ServerResponse res, Agent agent) {
        Responses.json(res, Status.OK_200, AgentJson.render(agent, clock.instant(), Optional.empty()));
    }

    private static AgentId id(ServerRequest req) {
        return Params.path(req, "id", AgentId::of);
    }
}
