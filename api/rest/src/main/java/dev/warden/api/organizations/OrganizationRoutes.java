package dev.warden.api.organizations;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * HTTP surface of organizations, members and roles, mounted at {@code /admin/v1} (SPEC Versioning 10; payloads
 * in docs/organizations.md). Errors are problem+json with the codes {@code no_active_org}, {@code org_mismatch},
 * {@code user_not_in_org}, {@code forbidden}, {@code role_in_use}, {@code unknown_permission}, {@code last_owner},
 * {@code not_found}.
 */
public final class OrganizationRoutes implements DeclaredService {
    static final Access READ = Access.scope("organizations:read");
    static final Access WRITE = Access.scope("organizations:write");

    private final OrganizationService organizations;
    private final long maxBodyBytes;

    public OrganizationRoutes(OrganizationService organizations, long maxBodyBytes) {
        this.organizations = organizations;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/organizations", WRITE, this::create)
                .get("/organizations", READ, this::mine)
                .get("/organizations/{orgID}", READ, this::get)
                .get("/active-organization", READ, this::active)
                .put("/active-organization", WRITE, this::activate)
                .get("/organizations/{orgID}/members", READ, this::members)
                .post("/organizations/{orgID}/members", WRITE, this::addMember)
                .patch("/organizations/{orgID}/members/{userID}", WRITE, this::changeRole)
                .delete("/organizations/{orgID}/members/{userID}", WRITE, this::removeMember)
                .get("/organizations/{orgID}/roles", READ, this::roles)
                .post("/organizations/{orgID}/roles", WRITE, this::createRole)
                .delete("/organizations/{orgID}/roles/{role}", WRITE, this::deleteRole);
    }

    private void create(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("name"));
        Optional<String> name = in.requiredString("name", OrganizationJson.MAX_NAME);
        in.validate();
        Organization created = organizations.create(AuthFilter.principal(req), name.orElseThrow());
        res.header("Location", "/admin/v1/organizations/" + created.id());
        Responses.json(
                res, Status.CREATED_201, OrganizationJson.render(created, Optional.of("owner"), Optional.empty()));
    }

    private void mine(ServerRequest req, ServerResponse res) {
        Principal caller = AuthFilter.principal(req);
        List<OrganizationRepository.Membership> memberships = organizations.mine(caller);
        Optional<String> active = memberships.isEmpty() ? Optional.empty() : organizations.activeId(caller);
        Responses.json(res, Status.OK_200, OrganizationJson.renderMemberships(memberships, active));
    }

    private void get(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.render(
                        organizations.get(AuthFilter.principal(req), organization(req)),
                        Optional.empty(),
                        Optional.empty()));
    }

    private void active(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.render(
                        organizations.active(AuthFilter.principal(req)), Optional.empty(), Optional.empty()));
    }

    private void activate(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("organizationId"));
        Optional<String> id = in.requiredValue("organizationId", Ids.MAX_LENGTH, OrganizationRoutes::organizationId);
        in.validate();
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.render(
                        organizations.activate(AuthFilter.principal(req), id.orElseThrow()),
                        Optional.empty(),
                        Optional.empty()));
    }

    private void members(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.renderMembers(organizations.members(AuthFilter.principal(req), organization(req))));
    }

    private void addMember(ServerRequest req, ServerResponse res) {
        String organization = organization(req);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("userId", "role"));
        Optional<UserId> user = in.requiredValue("userId", Ids.MAX_LENGTH, UserId::of);
        Optional<String> role = in.requiredString("role", 32);
        in.validate();
        Member added = organizations.addMember(
                AuthFilter.principal(req), organization, user.orElseThrow(), role.orElseThrow());
        res.header(
                "Location",
                "/admin/v1/organizations/" + organization + "/members/"
                        + added.userId().value());
        Responses.json(res, Status.CREATED_201, OrganizationJson.render(added));
    }

    private void changeRole(ServerRequest req, ServerResponse res) {
        String organization = organization(req);
        UserId user = Params.path(req, "userID", UserId::of);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("role"));
        Optional<String> role = in.requiredString("role", 32);
        in.validate();
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.render(
                        organizations.changeRole(AuthFilter.principal(req), organization, user, role.orElseThrow())));
    }

    private void removeMember(ServerRequest req, ServerResponse res) {
        organizations.removeMember(
                AuthFilter.principal(req), organization(req), Params.path(req, "userID", UserId::of));
        Responses.noContent(res);
    }

    private void roles(ServerRequest req, ServerResponse res) {
        Responses.json(
                res,
                Status.OK_200,
                OrganizationJson.renderRoles(organizations.roles(AuthFilter.principal(req), organization(req))));
    }

    private void createRole(ServerRequest req, ServerResponse res) {
        String organization = organization(req);
        ObjectNode body = RequestReader.readObject(req, maxBodyBytes);
        JsonInput in = JsonInput.of(body, Set.of("name", "permissions"));
        Optional<String> name = in.requiredString("name", 32);
        List<String> permissions = OrganizationJson.permissions(in);
        in.validate();
        Role role = organizations.createRole(AuthFilter.principal(req), organization, name.orElseThrow(), permissions);
        res.header("Location", "/admin/v1/organizations/" + organization + "/roles/" + role.name());
        Responses.json(res, Status.CREATED_201, OrganizationJson.render(role));
    }

    private void deleteRole(ServerRequest req, ServerResponse res) {
        organizations.deleteRole(AuthFilter.principal(req), organization(req), Params.path(req, "role", r -> r));
        Responses.noContent(res);
    }

    /** The {@code orgID} path parameter. */
    static String organization(ServerRequest req) {
        return Params.path(req, "orgID", OrganizationRoutes::organizationId);
    }

    private static String organizationId(String value) {
        return Ids.require("organization id", value);
    }
}
