package dev.warden.api.organizations;

import dev.warden.api.access.OrgStanding;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage of organizations, their members and custom roles, and each user's active organization. Changes to
 * an organization run under a lock on it ({@link #locked}), so rules that look at several members (the last
 * owner) hold under concurrent requests; every change stores its audit entry in the same transaction.
 */
public interface OrganizationRepository {

    /** One organization the user belongs to, with the user's role there. */
    record Membership(Organization organization, String role) {}

    /**
     * Stores a new organization with {@code owner} as its owner and makes it the owner's active organization
     * when they had none, with {@code audit}.
     */
    void create(Organization organization, UserId owner, AuditEntry audit);

    /** The organization with this id. */
    Optional<Organization> find(String id);

    /** Every organization {@code user} belongs to, oldest membership first. */
    List<Membership> membershipsOf(UserId user);

    /** The user's active organization, and their role and its permissions in {@code organizationId}. */
    OrgStanding standing(UserId user, String organizationId);

    /** The user's active organization, if any. */
    Optional<String> active(UserId user);

    /** Makes {@code organizationId} the user's active organization; false (nothing changed) when not a member. */
    boolean activate(UserId user, String organizationId);

    /** True when {@code user} is a member of {@code organizationId}. */
    boolean isMember(UserId user, String organizationId);

    /** True when a user with this id exists. */
    boolean userExists(UserId user);

    /**
     * Runs {@code work} in one transaction holding a lock on the organization; whatever it throws rolls it back.
     *
     * @return empty when there is no such organization
     */
    <T> Optional<T> locked(String organizationId, Work<T> work);

    /** Work under an organization's lock. */
    @FunctionalInterface
    interface Work<T> {
        T apply(Locked organization);
    }

    /** The operations available under an organization's lock; each one is part of the surrounding transaction. */
    interface Locked {
        /** The organization. */
        Organization organization();

        /** Every member, oldest first. */
        List<Member> members();

        /** The member, if {@code user} is one. */
        Optional<Member> member(UserId user);

        /** How many members hold {@code role}. */
        long holders(String role);

        /** Adds a member; the organization becomes their active one when they had none. */
        void add(UserId user, String role, Instant at);

        /** Changes a member's role. */
        void assign(UserId user, String role);

        /** Removes a member, and clears the organization as their active one. */
        void remove(UserId user);

        /** The organization's custom roles, by name. */
        List<Role> customRoles();

        /** Stores a custom role. */
        void addRole(Role role, Instant at);

        /** Deletes a custom role. */
        void deleteRole(String name);

        /** Stores the audit entry of the change. */
        void audit(AuditEntry entry);
    }
}
