package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.console.ConsoleRows.MemberRow;
import dev.warden.api.console.ConsoleRows.MembershipRow;
import dev.warden.api.console.ConsoleRows.RoleRow;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.organizations.Organization;
import dev.warden.api.organizations.OrganizationService;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The organizations pages: the organizations the person belongs to, with their role in each, and one
 * organization's members and roles, where a member who may administer members gives a member another role (the
 * same rules as {@code PATCH /admin/v1/organizations/{orgID}/members/{userID}}: who may give which role, and an
 * organization keeps an owner). Through {@link OrganizationService}, so through the one access policy.
 */
final class OrganizationPages implements DeclaredService {
    private final OrganizationService organizations;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final long maxBodyBytes;

    OrganizationPages(
            OrganizationService organizations, ConsoleSession session, ConsolePages pages, long maxBodyBytes) {
        this.organizations = organizations;
        this.session = session;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/organizations", Access.open(), this::list)
                .get("/organizations/{orgID}", Access.open(), this::organization)
                .post("/organizations/{orgID}/members/{userID}/role", Access.open(), this::changeRole);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Map<String, Object> params = session.params(req, res, user.get(), "organizations");
        // The person's own memberships, in the administrator view too.
        params.put(
                "memberships",
                organizations.mine(user.get().user()).stream()
                        .map(MembershipRow::of)
                        .toList());
        pages.send(res, Status.OK_200, "console/organizations.jte", params);
    }

    /** Members and roles; a 403 page for an organization the person is not in (the administrator sees any). */
    private void organization(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String id = organizationId(req);
        Organization organization = organizations.get(user.get().principal(), id);
        Map<String, Object> params = session.params(req, res, user.get(), "organizations");
        params.put("organization", MembershipRow.of(organization, ""));
        params.put(
                "members",
                organizations.members(user.get().principal(), id).stream()
                        .map(MemberRow::of)
                        .toList());
        List<RoleRow> roles = organizations.roles(user.get().principal(), id).stream()
                .map(RoleRow::of)
                .toList();
        params.put("roles", roles);
        params.put("manage", mayManageMembers(user.get(), id));
        pages.send(res, Status.OK_200, "console/organization.jte", params);
    }

    private boolean mayManageMembers(ConsoleSession.Operator operator, String organizationId) {
        try {
            organizations.authority(operator.principal(), organizationId, "members:admin");
            return true;
        } catch (ForbiddenException e) {
            return false;
        }
    }

    private void changeRole(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res, form);
        if (user.isEmpty()) {
            return;
        }
        String id = organizationId(req);
        UserId member = Params.path(req, "userID", UserId::of);
        organizations.changeRole(user.get().principal(), id, member, form.getOrDefault("role", ""));
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/organizations/" + id);
    }

    private static String organizationId(ServerRequest req) {
        return Params.path(req, "orgID", value -> Ids.require("orgID", value));
    }
}
