package dev.warden.api.organizations;

import dev.warden.api.access.OrgRoles;
import dev.warden.api.access.OrgStanding;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.DatabaseException;
import dev.warden.runtime.db.Sql;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@link OrganizationRepository} on Postgres tables {@code organizations}, {@code organization_members}, {@code organization_roles}. */
public final class JdbcOrganizationRepository implements OrganizationRepository {
    static final String INSERT = "INSERT INTO organizations (id, name, created_by, created_at) VALUES (?, ?, ?, ?)";
    static final String FIND = "SELECT id, name, created_by, created_at FROM organizations WHERE id = ?";
    static final String LOCK = FIND + " FOR UPDATE";
    static final String INSERT_MEMBER =
            "INSERT INTO organization_members (organization_id, user_id, role, joined_at) " + "VALUES (?, ?, ?, ?)";
    static final String ACTIVATE_IF_NONE =
            "UPDATE users SET active_organization_id = ? WHERE id = ? " + "AND active_organization_id IS NULL";
    static final String ACTIVATE_MEMBER = "UPDATE users SET active_organization_id = ? WHERE id = ? AND EXISTS ("
            + "SELECT 1 FROM organization_members WHERE organization_id = ? AND user_id = ?)";
    static final String MEMBERSHIPS =
            "SELECT o.id, o.name, o.created_by, o.created_at, m.role FROM organization_members m "
                    + "JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY m.joined_at, o.id LIMIT 1000";
    static final String ACTIVE = "SELECT active_organization_id FROM users WHERE id = ?";
    /** The active organization and the role in the one asked about, with a custom role's permissions. */
    static final String STANDING = "SELECT u.active_organization_id, m.role, r.permissions FROM users u "
            + "LEFT JOIN organization_members m ON m.user_id = u.id AND m.organization_id = ? "
            + "LEFT JOIN organization_roles r ON r.organization_id = m.organization_id AND r.name = m.role "
            + "WHERE u.id = ?";

    static final String IS_MEMBER = "SELECT 1 FROM organization_members WHERE organization_id = ? AND user_id = ?";
    static final String USER_EXISTS = "SELECT 1 FROM users WHERE id = ?";
    static final String MEMBERS = "SELECT m.user_id, u.username, m.role, m.joined_at FROM organization_members m "
            + "JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? ORDER BY m.joined_at, m.user_id LIMIT 10000";
    static final String MEMBER = "SELECT m.user_id, u.username, m.role, m.joined_at FROM organization_members m "
            + "JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? AND m.user_id = ?";
    static final String HOLDERS = "SELECT count(*) FROM organization_members WHERE organization_id = ? AND role = ?";
    static final String ASSIGN = "UPDATE organization_members SET role = ? WHERE organization_id = ? AND user_id = ?";
    static final String REMOVE = "DELETE FROM organization_members WHERE organization_id = ? AND user_id = ?";
    static final String DEACTIVATE =
            "UPDATE users SET active_organization_id = NULL WHERE id = ? " + "AND active_organization_id = ?";
    static final String ROLES =
            "SELECT name, permissions FROM organization_roles WHERE organization_id = ? " + "ORDER BY name LIMIT 1000";
    static final String INSERT_ROLE =
            "INSERT INTO organization_roles (organization_id, name, permissions, created_at) " + "VALUES (?, ?, ?, ?)";
    static final String DELETE_ROLE = "DELETE FROM organization_roles WHERE organization_id = ? AND name = ?";

    private final Database db;

    /** Every member's role, and a custom role's permissions (null for a built-in role). */
    static final String ROLES_OF_MEMBERS = "SELECT m.user_id, m.role, r.permissions FROM organization_members m "
            + "LEFT JOIN organization_roles r ON r.organization_id = m.organization_id AND r.name = m.role "
            + "WHERE m.organization_id = ? ORDER BY m.user_id";

    /**
     * The members of {@code organizationId} whose role holds {@code permission} (built-in or custom), read on
     * {@code conn}: who an organization's approval requests are mailed to.
     */
    public static List<String> holders(Connection conn, String organizationId, String permission) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(ROLES_OF_MEMBERS)) {
            ps.setString(1, organizationId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Array custom = rs.getArray(3);
                    Set<String> held = custom == null
                            ? OrgRoles.builtInPermissions(rs.getString(2)).orElse(Set.of())
                            : Set.of((String[]) custom.getArray());
                    if (OrgRoles.implies(held, permission)) {
                        out.add(rs.getString(1));
                    }
                }
            }
        }
        return out;
    }

    public JdbcOrganizationRepository(Database db) {
        this.db = db;
    }

    @Override
    public void create(Organization organization, UserId owner, AuditEntry audit) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, organization.id());
                ps.setString(2, organization.name());
                ps.setString(3, owner.value());
                ps.setTimestamp(4, Timestamp.from(organization.createdAt()));
                ps.executeUpdate();
            }
            insertMember(conn, organization.id(), owner, OrgRoles.OWNER, organization.createdAt());
            update(conn, ACTIVATE_IF_NONE, organization.id(), owner.value());
            EventOutbox.appendAudit(conn, audit);
            return null;
        });
    }

    @Override
    public Optional<Organization> find(String id) {
        return db.withConnection(conn -> findOrganization(conn, FIND, id));
    }

    @Override
    public List<Membership> membershipsOf(UserId user) {
        return db.withConnection(conn -> Sql.rows(
                conn, MEMBERSHIPS, rs -> new Membership(organization(rs), rs.getString("role")), user.value()));
    }

    @Override
    public OrgStanding standing(UserId user, String organizationId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(STANDING)) {
                ps.setString(1, organizationId);
                ps.setString(2, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return OrgStanding.none();
                    }
                    Optional<String> active = Optional.ofNullable(rs.getString(1));
                    Optional<String> role = Optional.ofNullable(rs.getString(2));
                    String[] custom = strings(rs, 3);
                    Set<String> permissions =
                            role.flatMap(OrgRoles::builtInPermissions).orElse(Set.of(custom));
                    return new OrgStanding(active, role, permissions);
                }
            }
        });
    }

    @Override
    public Optional<String> active(UserId user) {
        return db.withConnection(conn ->
                Sql.rows(conn, ACTIVE, rs -> Optional.ofNullable(rs.getString(1)), user.value()).stream()
                        .findFirst()
                        .flatMap(active -> active));
    }

    @Override
    public boolean activate(UserId user, String organizationId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(ACTIVATE_MEMBER)) {
                ps.setString(1, organizationId);
                ps.setString(2, user.value());
                ps.setString(3, organizationId);
                ps.setString(4, user.value());
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean isMember(UserId user, String organizationId) {
        return db.withConnection(conn -> exists(conn, IS_MEMBER, organizationId, user.value()));
    }

    @Override
    public boolean userExists(UserId user) {
        return db.withConnection(conn -> exists(conn, USER_EXISTS, user.value()));
    }

    @Override
    public <T> Optional<T> locked(String organizationId, Work<T> work) {
        return db.inTransaction(conn -> {
            Optional<Organization> organization = findOrganization(conn, LOCK, organizationId);
            if (organization.isEmpty()) {
                return Optional.empty();
            }
            return Optional.ofNullable(work.apply(new JdbcLocked(conn, organization.get())));
        });
    }

    /** The operations of {@link Locked} on the transaction's connection. */
    private record JdbcLocked(Connection conn, Organization organization) implements Locked {
        @Override
        public List<Member> members() {
            return sql(() -> Sql.rows(conn, MEMBERS, JdbcOrganizationRepository::readMember, organization.id()));
        }

        @Override
        public Optional<Member> member(UserId user) {
            return sql(() ->
                    Sql.rows(conn, MEMBER, JdbcOrganizationRepository::readMember, organization.id(), user.value())
                            .stream()
                            .findFirst());
        }

        @Override
        public long holders(String role) {
            return sql(() -> Sql.rows(conn, HOLDERS, rs -> rs.getLong(1), organization.id(), role)
                    .getFirst());
        }

        @Override
        public void add(UserId user, String role, Instant at) {
            sql(() -> {
                insertMember(conn, organization.id(), user, role, at);
                return update(conn, ACTIVATE_IF_NONE, organization.id(), user.value());
            });
        }

        @Override
        public void assign(UserId user, String role) {
            sql(() -> update(conn, ASSIGN, role, organization.id(), user.value()));
        }

        @Override
        public void remove(UserId user) {
            sql(() -> {
                update(conn, REMOVE, organization.id(), user.value());
                return update(conn, DEACTIVATE, user.value(), organization.id());
            });
        }

        @Override
        public List<Role> customRoles() {
            return sql(() -> Sql.rows(
                    conn, ROLES, rs -> new Role(rs.getString(1), Set.of(strings(rs, 2)), false), organization.id()));
        }

        @Override
        public void addRole(Role role, Instant at) {
            sql(() -> {
                try (PreparedStatement ps = conn.prepareStatement(INSERT_ROLE)) {
                    ps.setString(1, organization.id());
                    ps.setString(2, role.name());
                    ps.setArray(
                            3,
                            conn.createArrayOf(
                                    "text", role.permissions().stream().sorted().toArray()));
                    ps.setTimestamp(4, Timestamp.from(at));
                    return ps.executeUpdate();
                }
            });
        }

        @Override
        public void deleteRole(String name) {
            sql(() -> update(conn, DELETE_ROLE, organization.id(), name));
        }

        @Override
        public void audit(AuditEntry entry) {
            sql(() -> {
                EventOutbox.appendAudit(conn, entry);
                return null;
            });
        }
    }

    /** A statement of the locked transaction; its failure is a {@link DatabaseException} that rolls it back. */
    @FunctionalInterface
    private interface Statement<T> {
        T run() throws SQLException;
    }

    private static <T> T sql(Statement<T> statement) {
        try {
            return statement.run();
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    private static void insertMember(Connection conn, String organizationId, UserId user, String role, Instant at)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT_MEMBER)) {
            ps.setString(1, organizationId);
            ps.setString(2, user.value());
            ps.setString(3, role);
            ps.setTimestamp(4, Timestamp.from(at));
            ps.executeUpdate();
        }
    }

    private static int update(Connection conn, String sql, String... values) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setString(i + 1, values[i]);
            }
            return ps.executeUpdate();
        }
    }

    private static boolean exists(Connection conn, String sql, String... values) throws SQLException {
        return !Sql.rows(conn, sql, rs -> true, values).isEmpty();
    }

    private static Optional<Organization> findOrganization(Connection conn, String sql, String id) throws SQLException {
        return Sql.rows(conn, sql, JdbcOrganizationRepository::organization, id).stream()
                .findFirst();
    }

    private static Organization organization(ResultSet rs) throws SQLException {
        return new Organization(
                rs.getString("id"),
                rs.getString("name"),
                UserId.of(rs.getString("created_by")),
                rs.getTimestamp("created_at").toInstant());
    }

    private static Member readMember(ResultSet rs) throws SQLException {
        return new Member(
                UserId.of(rs.getString(1)),
                rs.getString(2),
                rs.getString(3),
                rs.getTimestamp(4).toInstant());
    }

    private static String[] strings(ResultSet rs, int column) throws SQLException {
        Array array = rs.getArray(column);
        return array == null ? new String[0] : (String[]) array.getArray();
    }
}
