package dev.warden.api.access;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.UserId;
import java.util.List;
import java.util.Optional;

/**
 * Who may do what: the one place that answers the ownership and visibility questions of every service
 * (ARCHITECTURE, Access; STYLE 13). Services ask it; they never switch on the kind of caller themselves.
 *
 * <p>The rules today, by caller:
 * <ul>
 *   <li>the bootstrap <b>administrator</b> sees and manages everything;</li>
 *   <li>a <b>user</b> (API token or session) sees and manages the agents they own, the delegations and audit
 *       entries of those agents, their own dashboard, webhooks and events; API tokens themselves are managed
 *       only with a session, so a leaked API token cannot mint longer-lived ones;</li>
 *   <li>an <b>agent</b> sees its own record, decides and records costs for itself, sees its own audit entries
 *       and events, and delegates what it holds; it manages nothing else.</li>
 * </ul>
 * Organizations add rules, not switches: a user acts in one organization at a time (its active one), with the
 * permissions of its role there ({@link OrgRoles}); an organization's agents are those whose tenant is the
 * organization; the bootstrap administrator is the deployment's operator and administers every organization;
 * agents administer none. Stateless and thread-safe.
 */
public final class AccessPolicy {
    private AccessPolicy() {}

    /**
     * Whether {@code caller} may see {@code agent} and act on its behalf (decide, record costs, delegate from
     * it): the administrator, the agent's owner, or the agent itself.
     */
    public static boolean mayActFor(Principal caller, Agent agent) {
        return switch (caller) {
            case Principal.Admin a -> true;
            case Principal.User u -> agent.ownerId().equals(u.id());
            case Principal.AgentCaller c -> agent.id().equals(c.id());
        };
    }

    /**
     * Whether {@code caller} may ask for a decision about the agent {@code id}, which may not exist: only the
     * administrator may ask about an agent nobody owns.
     */
    public static boolean mayAskAbout(Principal caller, AgentId id, Optional<Agent> agent) {
        return switch (caller) {
            case Principal.Admin a -> true;
            case Principal.User u -> agent.map(x -> x.ownerId().equals(u.id())).orElse(false);
            case Principal.AgentCaller c -> c.id().equals(id);
        };
    }

    /**
     * Whether {@code caller} may decide an approval request (docs/approvals.md): the administrator; a person who is
     * the request's approver (its {@code scope} is their user id, for {@code owner}) or who holds
     * {@code approvals:admin} in its organization (for {@code organization_admins}, as {@code organizationAdmin}
     * answers); never an agent, not even the agent the request is about.
     */
    public static boolean mayDecideApproval(
            Principal caller,
            dev.warden.authorizer.domain.ApprovalRule.Approvers approvers,
            String scope,
            java.util.function.Predicate<String> organizationAdmin) {
        return switch (caller) {
            case Principal.Admin a -> true;
            case Principal.AgentCaller c -> false;
            case Principal.User u ->
                switch (approvers) {
                    case OWNER -> u.id().value().equals(scope);
                    case ORGANIZATION_ADMINS -> organizationAdmin.test(scope);
                };
        };
    }

    /** Which approval requests a caller may list (docs/approvals.md). */
    public sealed interface ApprovalListing {
        /** Every request: the administrator. */
        record All() implements ApprovalListing {}

        /** The requests about one agent: that agent. */
        record OfAgent(AgentId agent) implements ApprovalListing {}

        /** A person's: those they may decide, and those about their agents. */
        record OfPerson(UserId user) implements ApprovalListing {}
    }

    /** Which approval requests {@code caller} may list. */
    public static ApprovalListing approvalListing(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new ApprovalListing.All();
            case Principal.AgentCaller c -> new ApprovalListing.OfAgent(c.id());
            case Principal.User u -> new ApprovalListing.OfPerson(u.id());
        };
    }

    /**
     * Whether {@code caller} may read an approval request about {@code agentId}, owned by {@code ownerId}: whoever
     * may decide it, the agent itself (to wait for the decision), and the agent's owner.
     */
    public static boolean maySeeApproval(Principal caller, String agentId, String ownerId, boolean mayDecide) {
        return mayDecide
                || (caller instanceof Principal.AgentCaller c && c.id().value().equals(agentId))
                || (caller instanceof Principal.User u && u.id().value().equals(ownerId));
    }

    /**
     * Requires that {@code caller} may create or change agents owned by {@code ownerId}.
     *
     * @throws ForbiddenException for an agent, or a user for someone else's agent (naming {@code ownerId})
     */
    public static void requireMayManageAgentsOf(Principal caller, UserId ownerId) {
        switch (caller) {
            case Principal.Admin a -> {}
            case Principal.User u when u.id().equals(ownerId) -> {}
            case Principal.User u ->
                throw new ForbiddenException(
                        ErrorCode.FORBIDDEN,
                        "ownerId must be your own user id",
                        List.of(new FieldError("ownerId", "must be your own user id")));
            case Principal.AgentCaller c -> throw new ForbiddenException("agent tokens cannot manage agents");
        }
    }

    /** Which agents {@code caller} may list: those of one owner, or all (empty); an agent then sees only itself. */
    public static AgentVisibility agentVisibility(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new AgentVisibility(Optional.empty(), Optional.empty());
            case Principal.User u -> new AgentVisibility(Optional.of(u.id()), Optional.empty());
            case Principal.AgentCaller c -> new AgentVisibility(Optional.of(c.ownerId()), Optional.of(c.id()));
        };
    }

    /** Agents of {@code owner} (all when empty), and of those only {@code only} when present. */
    public record AgentVisibility(Optional<UserId> owner, Optional<AgentId> only) {
        /** Whether {@code agent} is within this visibility. */
        public boolean includes(Agent agent) {
            return owner.map(agent.ownerId()::equals).orElse(true)
                    && only.map(agent.id()::equals).orElse(true);
        }
    }

    /**
     * Which audit entries {@code caller} may read: those of one owner ({@code userId}), of one agent, or all.
     */
    public static AuditVisibility auditVisibility(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new AuditVisibility(Optional.empty(), Optional.empty());
            case Principal.User u -> new AuditVisibility(Optional.of(u.id().value()), Optional.empty());
            case Principal.AgentCaller c -> new AuditVisibility(Optional.empty(), Optional.of(c.id().value()));
        };
    }

    /** Audit entries whose {@code userId} (the agent's owner) is {@code userId} and/or whose agent is {@code agentId}. */
    public record AuditVisibility(Optional<String> userId, Optional<String> agentId) {}

    /**
     * Whose dashboard {@code caller} may read: one owner's, or everyone's (empty).
     *
     * @throws ForbiddenException for an agent
     */
    public static Optional<UserId> dashboardOwner(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> Optional.empty();
            case Principal.User u -> Optional.of(u.id());
            case Principal.AgentCaller c ->
                throw new ForbiddenException("agent tokens cannot read dashboard statistics");
        };
    }

    /**
     * Whose API tokens {@code caller} may manage: one user's (their own, with a session) or anyone's (empty:
     * the administrator).
     *
     * @throws ForbiddenException for an API token or an agent
     */
    public static Optional<UserId> apiTokenManager(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> Optional.empty();
            case Principal.User u when u.isSession() -> Optional.of(u.id());
            default ->
                throw new ForbiddenException(
                        "managing API tokens needs a signed-in session (or the administrator token)");
        };
    }

    /**
     * Whose webhook endpoints {@code caller} manages: the administrator's, or a user's own (present).
     *
     * @throws ForbiddenException for an agent
     */
    public static Optional<UserId> webhookOwner(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> Optional.empty();
            case Principal.User u -> Optional.of(u.id());
            case Principal.AgentCaller c ->
                throw new ForbiddenException(
                        "webhook endpoints are managed by users and the administrator, not by agents");
        };
    }

    /**
     * Who manages the Shared Signals streams {@code caller} creates and whose signals they carry
     * (docs/shared-signals.md): the administrator's streams carry everyone's; a person's carry their own and their
     * agents'; an agent's (a receiver authenticating with client credentials) carry its owner's, since its owner
     * gave it {@code ssf:write} for that. Every caller manages only the streams it created; the administrator,
     * every stream.
     */
    public static SignalsOwner signalsOwner(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new SignalsOwner("admin", Optional.empty(), a.subjectId(), true);
            case Principal.User u ->
                new SignalsOwner("user:" + u.id().value(), Optional.of(u.id().value()), u.id().value(), false);
            case Principal.AgentCaller c ->
                new SignalsOwner(
                        "agent:" + c.id().value(), Optional.of(c.ownerId().value()), c.id().value(), false);
        };
    }

    /**
     * A caller as the Shared Signals transmitter sees it.
     *
     * @param manager     the key its streams are kept under
     * @param ownerUser   whose signals its streams carry; empty: everyone's
     * @param audience    the {@code aud} of its streams' tokens: its client id (an agent's is its id)
     * @param managesAll  whether it manages every stream (the administrator)
     */
    public record SignalsOwner(String manager, Optional<String> ownerUser, String audience, boolean managesAll) {
        /** Whether a stream kept under {@code streamManager} is this caller's to see and change. */
        public boolean manages(String streamManager) {
            return managesAll || manager.equals(streamManager);
        }
    }

    /** Which events {@code caller} may receive on the stream. */
    public static EventVisibility eventVisibility(Principal caller) {
        return switch (caller) {
            case Principal.Admin a -> new EventVisibility.All();
            case Principal.User u -> new EventVisibility.OfUser(u.id().value());
            case Principal.AgentCaller c -> new EventVisibility.OfAgent(c.id().value());
        };
    }

    /** Which events a stream subscriber may receive. */
    public sealed interface EventVisibility {
        /** Every event (the administrator). */
        record All() implements EventVisibility {}

        /** Events whose {@code userId} is this user's. */
        record OfUser(String userId) implements EventVisibility {}

        /** Events whose {@code agentId} is this agent's. */
        record OfAgent(String agentId) implements EventVisibility {}
    }

    /**
     * Requires the administrator (process-wide statistics, dead letters).
     *
     * @throws ForbiddenException for anyone else, saying what {@code what} is reserved
     */
    public static void requireAdministrator(Principal caller, String what) {
        if (!(caller instanceof Principal.Admin)) {
            throw new ForbiddenException(what + " are for the administrator");
        }
    }

    /**
     * Refuses a user whose credential proves no second factor, on an area configured to ask for one (step-up):
     * 403 {@code step_up_required}. The bootstrap administrator and agents are not users and pass.
     */
    public static void requireSecondFactor(Principal caller, String area) {
        if (caller instanceof Principal.User user && !user.multiFactor()) {
            throw new ForbiddenException(
                    ErrorCode.STEP_UP_REQUIRED,
                    area + " asks for a second factor: sign in with your password and TOTP code, then retry with that "
                            + "session");
        }
    }

    /**
     * Requires a user signed in with a session (sign-out, change-username, the session itself).
     *
     * @throws ForbiddenException otherwise
     */
    public static Principal.User requireSession(Principal caller) {
        if (caller instanceof Principal.User user && user.isSession()) {
            return user;
        }
        throw new ForbiddenException("this endpoint needs a signed-in session (POST /auth/sign-in)");
    }

    /**
     * Requires a user calling with an API token (its own {@code /auth/tokens/current}).
     *
     * @throws ForbiddenException otherwise
     */
    public static Principal.User requireApiToken(Principal caller) {
        if (caller instanceof Principal.User user && !user.isSession()) {
            return user;
        }
        throw new ForbiddenException("this endpoint accepts only a bearer API token");
    }

    /**
     * Requires that {@code caller} may change agents at all (an agent may read its own record, not change it).
     *
     * @throws ForbiddenException for an agent
     */
    public static void requireNotAgent(Principal caller, String message) {
        if (caller instanceof Principal.AgentCaller) {
            throw new ForbiddenException(message);
        }
    }

    /**
     * Requires a user (any credential): organizations are created, joined and switched between by users; the
     * bootstrap administrator belongs to none and an agent acts for its owner.
     *
     * @throws ForbiddenException otherwise, saying that {@code what} is for users
     */
    public static Principal.User requireUser(Principal caller, String what) {
        if (caller instanceof Principal.User user) {
            return user;
        }
        throw new ForbiddenException(what + " is for users (the administrator and agents belong to no organization)");
    }

    /**
     * Requires that {@code caller} may use {@code permission} in the organization {@code organizationId}, given
     * the caller's stored {@code standing} (its active organization and its role there). The order of the checks
     * never tells a caller whether another organization exists.
     *
     * @throws ForbiddenException {@code forbidden} for an agent or a role without the permission,
     *                            {@code no_active_org} for a user acting in no organization, {@code org_mismatch}
     *                            when the organization is not the user's active one, {@code user_not_in_org} when
     *                            the user is no longer a member of it
     */
    public static OrgAuthority requireInOrganization(
            Principal caller, String organizationId, OrgStanding standing, String permission) {
        return switch (caller) {
            case Principal.Admin a ->
                new OrgAuthority(organizationId, caller, "administrator", OrgRoles.CATALOGUE.keySet());
            case Principal.AgentCaller c ->
                throw new ForbiddenException("organizations are administered by users, " + "not by agents");
            case Principal.User u -> {
                String active = standing.active()
                        .orElseThrow(
                                () -> new ForbiddenException(
                                        ErrorCode.NO_ACTIVE_ORG,
                                        "you have no active organization; create one or switch to one (PUT /admin/v1/active-organization)"));
                if (!active.equals(organizationId)) {
                    throw new ForbiddenException(
                            ErrorCode.ORG_MISMATCH,
                            "the path names an organization other than " + "your active one (" + active + ")");
                }
                String role = standing.role()
                        .orElseThrow(() -> new ForbiddenException(
                                ErrorCode.USER_NOT_IN_ORG, "you are not a member of this organization"));
                if (!OrgRoles.implies(standing.permissions(), permission)) {
                    throw new ForbiddenException(
                            ErrorCode.FORBIDDEN, "your role (" + role + ") does not include " + permission);
                }
                yield new OrgAuthority(organizationId, caller, role, standing.permissions());
            }
        };
    }

    /** Whether {@code authority} reaches {@code agent}: the organization's agents are those of its tenant. */
    public static boolean inOrganization(OrgAuthority authority, Agent agent) {
        return agent.tenantId()
                .map(t -> t.value().equals(authority.organizationId()))
                .orElse(false);
    }

    /**
     * Requires that {@code authority} may change {@code member}'s role from {@code from} to {@code to} (either empty
     * when the member is being added or removed):
     * <ul>
     * <li>the owner role is granted and taken away by owners only;</li>
     * <li>nobody changes their own role (leaving is not a change of role);</li>
     * <li>a caller may only grant, or take away, a role whose permissions are all its own: nobody hands out power
     * they do not hold, nor acts on a member who holds more than they do.</li>
     * </ul>
     *
     * @throws ForbiddenException otherwise, naming {@code role} and each permission the caller lacks
     */
    public static void requireMayAssign(
            OrgAuthority authority, UserId member, Optional<OrgRoles.Named> from, Optional<OrgRoles.Named> to) {
        boolean touchesOwner = from.filter(r -> r.name().equals(OrgRoles.OWNER)).isPresent()
                || to.filter(r -> r.name().equals(OrgRoles.OWNER)).isPresent();
        if (touchesOwner && !authority.isOwner()) {
            throw new ForbiddenException("only an owner may grant or take away the owner role");
        }
        if (from.isPresent()
                && to.isPresent()
                && authority.actor() instanceof Principal.User self
                && self.id().equals(member)) {
            throw new ForbiddenException(
                    ErrorCode.FORBIDDEN,
                    "nobody changes their own role; another member " + "with the authority must",
                    List.of(new FieldError("userId", "is you")));
        }
        for (Optional<OrgRoles.Named> role : List.of(from, to)) {
            List<String> lacking = role.map(r -> r.permissions().stream()
                            .filter(p -> !authority.holds(p))
                            .sorted()
                            .toList())
                    .orElse(List.of());
            if (!lacking.isEmpty()) {
                throw new ForbiddenException(
                        ErrorCode.FORBIDDEN,
                        "role " + role.get().name() + " holds permissions " + "you do not: "
                                + String.join(", ", lacking),
                        List.of(new FieldError("role", "holds permissions you do not: " + String.join(", ", lacking))));
            }
        }
    }

    /**
     * Requires that an agent of {@code ownerId} may be placed in an organization the owner belongs to
     * ({@code ownerIsMember}): an organization's tenant holds its members' agents only.
     *
     * @throws ForbiddenException {@code user_not_in_org} naming {@code tenantId}
     */
    public static void requireMayPlaceAgent(UserId ownerId, String organizationId, boolean ownerIsMember) {
        if (!ownerIsMember) {
            throw new ForbiddenException(
                    ErrorCode.USER_NOT_IN_ORG,
                    "owner " + ownerId.value() + " is not a member of organization " + organizationId,
                    List.of(new FieldError("tenantId", "the owner is not a member of this organization")));
        }
    }
}
