package dev.warden.api.organizations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.OrgAuthority;
import dev.warden.api.agents.AgentJson;
import dev.warden.api.agents.AgentService;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.delegations.DelegationJson;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.ListCursor;
import dev.warden.api.http.ListPaging;
import dev.warden.api.http.Params;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.db.Keyset;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The administration of an organization's agents and delegations, mounted at {@code /admin/v1} (SPEC: Further
 * HTTP routes; payloads in docs/organizations.md): cursor-paginated lists, reads, and the actions {@code revoke},
 * {@code suspend}, {@code resume} on agents and {@code revoke} on delegations ({@code unsupported_action} for any
 * other), each gated by the caller's role ({@code agents:read|admin}, {@code delegations:read|admin}) and audited.
 */
public final class OrganizationAdminRoutes implements DeclaredService {
    /** Page size when {@code limit} is not given (the largest accepted is {@link ListPaging#MAX_LIMIT}). */
    static final int DEFAULT_LIMIT = 50;

    private final OrganizationService organizations;
    private final AgentService agents;
    private final DelegationService delegations;
    private final ListCursor cursors;
    private final InstantSource clock;

    public OrganizationAdminRoutes(
            OrganizationService organizations,
            AgentService agents,
            DelegationService delegations,
            ListCursor cursors,
            InstantSource clock) {
        this.organizations = organizations;
        this.agents = agents;
        this.delegations = delegations;
        this.cursors = cursors;
        this.clock = clock;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/organizations/{orgID}/agents", OrganizationRoutes.READ, this::listAgents)
                .get("/organizations/{orgID}/agents/{agentID}", OrganizationRoutes.READ, this::getAgent)
                .post("/organizations/{orgID}/agents/{agentID}/{action}", OrganizationRoutes.WRITE, this::actOnAgent)
                .get("/organizations/{orgID}/delegations", OrganizationRoutes.READ, this::listDelegations)
                .get("/organizations/{orgID}/delegations/{delegationID}", OrganizationRoutes.READ, this::getDelegation)
                .post(
                        "/organizations/{orgID}/delegations/{delegationID}/{action}",
                        OrganizationRoutes.WRITE,
                        this::actOnDelegation);
    }

    private void listAgents(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "agents:read");
        AgentService.Query query = new AgentService.Query(
                Params.queryEnum(req, "status", AgentStatus.class),
                Params.queryEnum(req, "type", AgentType.class),
                Optional.empty());
        String list = "agents:" + authority.organizationId() + ":"
                + query.status().map(AgentStatus::wireName).orElse("") + ":"
                + query.type().map(AgentType::wireName).orElse("");
        int limit = limit(req);
        List<Agent> page = agents.pageInOrganization(authority, query, after(req, list), limit + 1);
        ArrayNode items = AgentJson.renderAll(page.stream().limit(limit).toList(), clock.instant());
        Responses.json(
                res,
                Status.OK_200,
                page(
                        items,
                        page.size() > limit
                                ? Optional.of(cursors.encode(list, keyset(page.get(limit - 1))))
                                : Optional.empty()));
    }

    private void getAgent(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "agents:read");
        Responses.json(
                res,
                Status.OK_200,
                AgentJson.render(agents.inOrganization(authority, agentId(req)), clock.instant(), Optional.empty()));
    }

    private void actOnAgent(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "agents:admin");
        AgentService.AdminAction action = action(req, AgentService.AdminAction.class);
        AgentId id = agentId(req);
        Agent after = agents.administer(
                authority,
                id,
                action,
                (before, changed, at) -> AdminAudit.entry(
                        "agent." + action.name().toLowerCase(Locale.ROOT),
                        authority,
                        new AdminAudit.Target(
                                "agent",
                                id.value(),
                                id.value(),
                                Optional.of(before.ownerId().value())),
                        Optional.of(Map.of("status", before.status(at).wireName())),
                        Optional.of(Map.of("status", changed.status(at).wireName())),
                        at));
        Responses.json(res, Status.OK_200, AgentJson.render(after, clock.instant(), Optional.empty()));
    }

    private void listDelegations(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "delegations:read");
        String list = "delegations:" + authority.organizationId();
        int limit = limit(req);
        List<Delegation> page = delegations.pageInOrganization(authority, after(req, list), limit + 1);
        ArrayNode items = DelegationJson.renderAll(page.stream().limit(limit).toList());
        Responses.json(
                res,
                Status.OK_200,
                page(
                        items,
                        page.size() > limit
                                ? Optional.of(cursors.encode(
                                        list,
                                        new Keyset(
                                                page.get(limit - 1).createdAt(),
                                                page.get(limit - 1).id().value())))
                                : Optional.empty()));
    }

    private void getDelegation(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "delegations:read");
        Responses.json(
                res, Status.OK_200, DelegationJson.render(delegations.inOrganization(authority, delegationId(req))));
    }

    private void actOnDelegation(ServerRequest req, ServerResponse res) {
        OrgAuthority authority = authority(req, "delegations:admin");
        action(req, DelegationAction.class);
        DelegationId id = delegationId(req);
        Function<List<Delegation>, AuditEntry> audit = revoked -> AdminAudit.entry(
                "delegation.revoke",
                authority,
                AdminAudit.Target.of("delegation", id.value(), Optional.empty()),
                Optional.of(Map.of("status", "active")),
                Optional.of(Map.of(
                        "status",
                        "revoked",
                        "revoked",
                        revoked.stream().map(d -> d.id().value()).toList())),
                clock.instant());
        delegations.revokeAsAdministrator(authority, id, audit);
        Responses.noContent(res);
    }

    /** The actions on a delegation. */
    private enum DelegationAction {
        REVOKE
    }

    private OrgAuthority authority(ServerRequest req, String permission) {
        return organizations.authority(AuthFilter.principal(req), OrganizationRoutes.organization(req), permission);
    }

    private Optional<Keyset> after(ServerRequest req, String list) {
        return ListPaging.after(req, cursors, list);
    }

    private static int limit(ServerRequest req) {
        return Params.query(req, "limit", ListPaging::limit).orElse(DEFAULT_LIMIT);
    }

    private static <E extends Enum<E>> E action(ServerRequest req, Class<E> type) {
        String action = Params.path(req, "action", a -> a);
        for (E candidate : type.getEnumConstants()) {
            if (candidate.name().toLowerCase(Locale.ROOT).equals(action)) {
                return candidate;
            }
        }
        throw new InvalidInputException(
                ErrorCode.UNSUPPORTED_ACTION,
                "unsupported action '" + action + "'",
                List.of(new FieldError(
                        "action",
                        "must be one of "
                                + Arrays.stream(type.getEnumConstants())
                                        .map(e -> e.name().toLowerCase(Locale.ROOT))
                                        .toList())));
    }

    private static ObjectNode page(ArrayNode items, Optional<String> next) {
        ObjectNode node = Json.mapper().createObjectNode();
        node.set("items", items);
        node.put("nextCursor", next.orElse(null));
        return node;
    }

    private static Keyset keyset(Agent agent) {
        return new Keyset(agent.createdAt(), agent.id().value());
    }

    private static AgentId agentId(ServerRequest req) {
        return Params.path(req, "agentID", AgentId::of);
    }

    private static DelegationId delegationId(ServerRequest req) {
        return Params.path(req, "delegationID", DelegationId::of);
    }
}
