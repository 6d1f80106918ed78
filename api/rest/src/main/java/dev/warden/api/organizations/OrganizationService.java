package dev.warden.api.organizations;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.OrgAuthority;
import dev.warden.api.access.OrgRoles;
import dev.warden.api.access.OrgStanding;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Organizations, their members and roles (docs/organizations.md): create one (its creator is its owner), switch
 * the active one, add and remove members, change roles, define custom roles. Who may do what is the access
 * policy's ({@link AccessPolicy#requireInOrganization}); the rules that look at several members (an organization
 * keeps an owner) are checked under the organization's lock. Every change stores its audit entry with it and is
 * published before the method returns. Also places new agents in their owner's organization
 * ({@link AgentService.Tenancy}). Thread-safe.
 */
public final class OrganizationService implements AgentService.Tenancy {
    /** Custom role names: lower-case letters, digits, {@code _} and {@code -}, 1 to 32 characters. */
    private static final Pattern ROLE_NAME = Pattern.compile("[a-z0-9_-]{1,32}");
    /** The prefix of organization ids; a tenant id with it must name an organization. */
    static final String ID_PREFIX = "org_";

    private final OrganizationRepository repository;
    private final EventOutbox outbox;
    private final InstantSource clock;

    public OrganizationService(OrganizationRepository repository, EventOutbox outbox, InstantSource clock) {
        this.repository = repository;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** Creates an organization owned by the caller; it becomes the caller's active one when they had none. */
    public Organization create(Principal caller, String name) {
        Principal.User user = AccessPolicy.requireUser(caller, "creating an organization");
        if (!repository.userExists(user.id())) {
            throw new ForbiddenException("organizations are for users with an account (POST /auth/sign-up); "
                    + user.id().value() + " has API tokens only");
        }
        Instant now = now();
        Organization organization = new Organization(Ids.mint("org"), name, user.id(), now);
        repository.create(
                organization,
                user.id(),
                AdminAudit.entry(
                        "organization.create",
                        caller,
                        organization.id(),
                        AdminAudit.Target.of(
                                "organization",
                                organization.id(),
                                Optional.of(user.id().value())),
                        Optional.empty(),
                        Optional.of(Map.of("name", name)),
                        now));
        outbox.flush();
        return organization;
    }

    /** The organizations the caller belongs to, with its role in each. */
    public List<OrganizationRepository.Membership> mine(Principal caller) {
        return repository.membershipsOf(
                AccessPolicy.requireUser(caller, "belonging to organizations").id());
    }

    /** The id of the caller's active organization, if it has one. */
    public Optional<String> activeId(Principal caller) {
        return repository.active(
                AccessPolicy.requireUser(caller, "an active organization").id());
    }

    /**
     * The caller's active organization.
     *
     * @throws ForbiddenException {@code no_active_org} when it has none
     */
    public Organization active(Principal caller) {
        return activeId(caller)
                .flatMap(repository::find)
                .orElseThrow(() -> new ForbiddenException(
                        ErrorCode.NO_ACTIVE_ORG, "you have no active organization; create one or switch to one"));
    }

    /**
     * Makes {@code organizationId} the caller's active organization.
     *
     * @throws ForbiddenException {@code user_not_in_org} when the caller is not a member (or it does not exist)
     */
    public Organization activate(Principal caller, String organizationId) {
        Principal.User user = AccessPolicy.requireUser(caller, "an active organization");
        if (!repository.activate(user.id(), organizationId)) {
            throw new ForbiddenException(
                    ErrorCode.USER_NOT_IN_ORG,
                    "you are not a member of organization " + organizationId,
                    List.of(new FieldError("organizationId", "you are not a member")));
        }
        return repository.find(organizationId).orElseThrow(OrganizationService::organizationNotFound);
    }

    /**
     * What the caller may do in {@code organizationId}, when it may use {@code permission} there.
     *
     * @throws ForbiddenException as {@link AccessPolicy#requireInOrganization} says
     * @throws NotFoundException  when the organization does not exist (told only to whom the policy let through:
     *                            the administrator, since a user's active organization exists)
     */
    public OrgAuthority authority(Principal caller, String organizationId, String permission) {
        OrgStanding standing = caller instanceof Principal.User user
                ? repository.standing(user.id(), organizationId)
                : OrgStanding.none();
        OrgAuthority authority = AccessPolicy.requireInOrganization(caller, organizationId, standing, permission);
        // A member's organization exists (its membership refers to it); only a caller let through without one (the
        // administrator) may name an organization that does not.
        if (standing.role().isEmpty() && repository.find(organizationId).isEmpty()) {
            throw organizationNotFound();
        }
        return authority;
    }

    /** The organization, for its members. */
    public Organization get(Principal caller, String organizationId) {
        authority(caller, organizationId, "members:read");
        return repository.find(organizationId).orElseThrow(OrganizationService::organizationNotFound);
    }

    /** Its members, oldest first. */
    public List<Member> members(Principal caller, String organizationId) {
        authority(caller, organizationId, "members:read");
        return locked(organizationId, OrganizationRepository.Locked::members);
    }

    /**
     * Adds an existing user as a member with {@code role}.
     *
     * @throws ConflictException {@code already_member}
     */
    public Member addMember(Principal caller, String organizationId, UserId user, String role) {
        OrgAuthority authority = authority(caller, organizationId, "members:admin");
        if (!repository.userExists(user)) {
            throw new NotFoundException(
                    ErrorCode.NOT_FOUND, "no such user", List.of(new FieldError("userId", "no such user")));
        }
        Instant now = now();
        Member added = locked(organizationId, org -> {
            AccessPolicy.requireMayAssign(authority, user, Optional.empty(), Optional.of(role(org, role)));
            if (org.member(user).isPresent()) {
                throw new ConflictException(ErrorCode.ALREADY_MEMBER, "user " + user.value() + " is already a member");
            }
            org.add(user, role, now);
            org.audit(AdminAudit.entry(
                    "member.add",
                    authority,
                    memberTarget(user),
                    Optional.empty(),
                    Optional.of(Map.of("role", role)),
                    now));
            return org.member(user).orElseThrow();
        });
        outbox.flush();
        return added;
    }

    /**
     * Gives a member another role; an organization keeps at least one owner. Who may give which role is the access
     * policy's ({@link AccessPolicy#requireMayAssign}).
     */
    public Member changeRole(Principal caller, String organizationId, UserId user, String role) {
        OrgAuthority authority = authority(caller, organizationId, "members:admin");
        Instant now = now();
        Member changed = locked(organizationId, org -> {
            OrgRoles.Named to = role(org, role);
            Member current = org.member(user).orElseThrow(() -> notMember(user));
            AccessPolicy.requireMayAssign(authority, user, Optional.of(role(org, current.role())), Optional.of(to));
            if (current.role().equals(role)) {
                return current;
            }
            requireKeepsAnOwner(org, current);
            org.assign(user, role);
            org.audit(AdminAudit.entry(
                    "member.role_change",
                    authority,
                    memberTarget(user),
                    Optional.of(Map.of("role", current.role())),
                    Optional.of(Map.of("role", role)),
                    now));
            return org.member(user).orElseThrow();
        });
        outbox.flush();
        return changed;
    }

    /**
     * Removes a member: an administrator removing anyone, or a member leaving. An organization keeps at least
     * one owner. The member's agents stay in the organization, under its administrators.
     */
    public void removeMember(Principal caller, String organizationId, UserId user) {
        boolean leaving = caller instanceof Principal.User u && u.id().equals(user);
        OrgAuthority authority = authority(caller, organizationId, leaving ? "members:read" : "members:admin");
        Instant now = now();
        locked(organizationId, org -> {
            Member current = org.member(user).orElseThrow(() -> notMember(user));
            if (!leaving) {
                AccessPolicy.requireMayAssign(
                        authority, user, Optional.of(role(org, current.role())), Optional.empty());
            }
            requireKeepsAnOwner(org, current);
            org.remove(user);
            org.audit(AdminAudit.entry(
                    leaving ? "member.leave" : "member.remove",
                    authority,
                    memberTarget(user),
                    Optional.of(Map.of("role", current.role())),
                    Optional.empty(),
                    now));
            return current;
        });
        outbox.flush();
    }

    /** The built-in roles and the organization's custom ones. */
    public List<Role> roles(Principal caller, String organizationId) {
        authority(caller, organizationId, "members:read");
        return locked(organizationId, OrganizationService::allRoles);
    }

    /**
     * Defines a custom role from catalogue permissions.
     *
     * @throws InvalidInputException {@code unknown_permission} naming each permission outside the catalogue
     */
    public Role createRole(Principal caller, String organizationId, String name, List<String> permissions) {
        OrgAuthority authority = authority(caller, organizationId, "roles:admin");
        if (!ROLE_NAME.matcher(name).matches()) {
            throw InvalidInputException.field("name", "must be 1 to 32 characters of a-z, 0-9, _ and -");
        }
        if (OrgRoles.builtInPermissions(name).isPresent()) {
            throw new ConflictException(
                    ErrorCode.CONFLICT,
                    "'" + name + "' is a built-in role",
                    List.of(new FieldError("name", "is a built-in role")));
        }
        List<FieldError> unknown = new ArrayList<>();
        for (int i = 0; i < permissions.size(); i++) {
            if (!OrgRoles.isPermission(permissions.get(i))) {
                unknown.add(new FieldError("permissions[" + i + "]", "is not a permission of the catalogue"));
            }
        }
        if (!unknown.isEmpty()) {
            throw new InvalidInputException(
                    ErrorCode.UNKNOWN_PERMISSION,
                    "permissions outside the catalogue " + "(docs/organizations.md)",
                    unknown);
        }
        Role role = new Role(name, Set.copyOf(permissions), false);
        Instant now = now();
        locked(organizationId, org -> {
            if (org.customRoles().stream().anyMatch(r -> r.name().equals(name))) {
                throw new ConflictException(
                        ErrorCode.CONFLICT, "role '" + name + "' exists", List.of(new FieldError("name", "exists")));
            }
            org.addRole(role, now);
            org.audit(AdminAudit.entry(
                    "role.create",
                    authority,
                    AdminAudit.Target.of("role", name, Optional.empty()),
                    Optional.empty(),
                    Optional.of(Map.of(
                            "permissions", role.permissions().stream().sorted().toList())),
                    now));
            return role;
        });
        outbox.flush();
        return role;
    }

    /**
     * Deletes a custom role.
     *
     * @throws ConflictException {@code role_in_use} while a member holds it
     */
    public void deleteRole(Principal caller, String organizationId, String name) {
        OrgAuthority authority = authority(caller, organizationId, "roles:admin");
        Instant now = now();
        locked(organizationId, org -> {
            if (OrgRoles.builtInPermissions(name).isPresent()) {
                throw new ConflictException(ErrorCode.CONFLICT, "built-in roles cannot be deleted");
            }
            Role role = org.customRoles().stream()
                    .filter(r -> r.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new NotFoundException(ErrorCode.NOT_FOUND, "no such role"));
            long holders = org.holders(name);
            if (holders > 0) {
                throw new ConflictException(
                        ErrorCode.ROLE_IN_USE,
                        "role '" + name + "' is held by " + holders + " member(s); give them another role first");
            }
            org.deleteRole(name);
            org.audit(AdminAudit.entry(
                    "role.delete",
                    authority,
                    AdminAudit.Target.of("role", name, Optional.empty()),
                    Optional.of(Map.of(
                            "permissions", role.permissions().stream().sorted().toList())),
                    Optional.empty(),
                    now));
            return role;
        });
        outbox.flush();
    }

    /**
     * A new agent's tenant: the one asked for when it is an organization the owner belongs to, or a free label
     * from before organizations (any value not shaped like an organization id); else the owner's active
     * organization, if any.
     */
    @Override
    public Optional<TenantId> place(UserId owner, Optional<TenantId> requested) {
        if (requested.isEmpty()) {
            return repository.active(owner).map(TenantId::of);
        }
        String tenant = requested.get().value();
        if (repository.find(tenant).isPresent()) {
            AccessPolicy.requireMayPlaceAgent(owner, tenant, repository.isMember(owner, tenant));
        } else if (tenant.startsWith(ID_PREFIX)) {
            throw InvalidInputException.field("tenantId", "names no organization");
        }
        return requested;
    }

    private <T> T locked(String organizationId, OrganizationRepository.Work<T> work) {
        return repository.locked(organizationId, work).orElseThrow(OrganizationService::organizationNotFound);
    }

    private static List<Role> allRoles(OrganizationRepository.Locked org) {
        List<Role> all = new ArrayList<>();
        OrgRoles.builtIn()
                .forEach(name ->
                        all.add(new Role(name, OrgRoles.builtInPermissions(name).orElseThrow(), true)));
        all.addAll(org.customRoles());
        return all;
    }

    /** The role {@code name} of {@code org}, built-in or custom, with its permissions. */
    private static OrgRoles.Named role(OrganizationRepository.Locked org, String name) {
        return allRoles(org).stream()
                .filter(r -> r.name().equals(name))
                .findFirst()
                .map(r -> new OrgRoles.Named(r.name(), r.permissions()))
                .orElseThrow(() -> InvalidInputException.field(
                        "role", "is neither a built-in role nor one of the " + "organization's"));
    }

    private static void requireKeepsAnOwner(OrganizationRepository.Locked org, Member leaving) {
        if (leaving.role().equals(OrgRoles.OWNER) && org.holders(OrgRoles.OWNER) <= 1) {
            throw new ConflictException(
                    ErrorCode.LAST_OWNER,
                    "the organization's last owner cannot leave or be " + "demoted; make another member owner first");
        }
    }

    private static AdminAudit.Target memberTarget(UserId user) {
        return AdminAudit.Target.of("member", user.value(), Optional.of(user.value()));
    }

    private static ForbiddenException notMember(UserId user) {
        return new ForbiddenException(
                ErrorCode.USER_NOT_IN_ORG, "user " + user.value() + " is not a member of this organization");
    }

    private static NotFoundException organizationNotFound() {
        return new NotFoundException(ErrorCode.NOT_FOUND, "no such organization");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
