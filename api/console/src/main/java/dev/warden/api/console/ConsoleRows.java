package dev.warden.api.console;

import dev.warden.api.agents.PermissionJson;
import dev.warden.api.approvals.Approval;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.organizations.Member;
import dev.warden.api.organizations.Organization;
import dev.warden.api.organizations.OrganizationRepository;
import dev.warden.api.organizations.Role;
import dev.warden.api.webhooks.Webhook;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Permission;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.sinks.webhooks.WebhookDelivery;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** What the console's templates show, as plain text values (the templates escape every one). */
public final class ConsoleRows {
    private ConsoleRows() {}

    /** One agent. */
    public record AgentRow(String id, String name, String type, String status, String owner) {
        static AgentRow of(Agent agent, Instant now) {
            return new AgentRow(
                    agent.id().value(),
                    agent.name(),
                    agent.type().wireName(),
                    agent.status(now).wireName(),
                    agent.ownerId().value());
        }
    }

    /** One permission. */
    public record PermissionRow(String resource, String actions, String constraints) {
        static PermissionRow of(Permission p) {
            return new PermissionRow(
                    p.resource(),
                    String.join(", ", p.actions()),
                    PermissionJson.render(List.of(p)).get(0).path("constraints").toString());
        }
    }

    /** One request as the page shows it. */
    public record ApprovalRow(
            String id,
            String agentId,
            String action,
            String resource,
            String arguments,
            String status,
            String approvers,
            String requestedAt,
            String expiresAt,
            String decidedBy,
            String note) {
        static ApprovalRow of(Approval a) {
            return new ApprovalRow(
                    a.id(),
                    a.agentId(),
                    a.action(),
                    a.resource(),
                    Json.mapper().valueToTree(a.arguments()).toString(),
                    a.status().wireName(),
                    a.approvers().wireName(),
                    Json.timestamp(a.requestedAt()),
                    Json.timestamp(a.expiresAt()),
                    a.decidedBy().orElse(""),
                    a.note().orElse(""));
        }
    }

    /** One audit entry in a list. */
    public record AuditRow(
            String id, String time, String agentId, String action, String resource, String result, String reason) {
        static AuditRow of(AuditEntry e) {
            return new AuditRow(
                    e.id(),
                    e.timestamp().toString(),
                    e.agentId(),
                    e.action(),
                    e.resource(),
                    e.result().wireName(),
                    e.reason().orElse(""));
        }
    }

    /**
     * One delegation: its ends named as the viewer may see them (a name, else the id alone), what it grants, and
     * its state at the moment the page is about ({@code now} for the lists, the decision's time for an entry).
     */
    public record DelegationRow(
            String id, End from, End to, String grants, int depth, String createdAt, String expiresAt, String state) {
        static DelegationRow of(Delegation d, Function<AgentId, Optional<String>> names, Instant now) {
            // The state at the moment the page is about (an audit entry's chain is shown as it stood).
            String state = d.revokedAt().filter(r -> !r.isAfter(now)).isPresent()
                    ? "revoked"
                    : d.expiresAt().filter(e -> !e.isAfter(now)).isPresent() ? "expired" : "active";
            return new DelegationRow(
                    d.id().value(),
                    End.of(d.fromAgent(), names),
                    End.of(d.toAgent(), names),
                    ChainGraph.grants(d.permissions()),
                    d.depth(),
                    d.createdAt().toString(),
                    d.expiresAt().map(Instant::toString).orElse("never"),
                    state);
        }
    }

    /** One end of a delegation: the agent's id, and its name when the viewer may see it (else empty). */
    public record End(String id, String name) {
        static End of(AgentId id, Function<AgentId, Optional<String>> names) {
            return new End(id.value(), names.apply(id).orElse(""));
        }

        public boolean visible() {
            return !name.isEmpty();
        }
    }

    /** This hour's decisions about an agent, beside the hourly limits of its permissions. */
    public record HourUse(long calls, long denied, List<String> limits) {}

    /** The audit search's filters as sent (shown again in the form) and the links it offers. */
    public record AuditSearch(
            String agentId,
            String actions,
            String result,
            String since,
            String until,
            String query,
            String previous,
            String next) {}

    /** One entry's facts, for its page. */
    public record EntryView(
            AuditRow row,
            String userId,
            String callerId,
            String durationMs,
            String reasonDetail,
            String callerIp,
            String ip,
            String userAgent,
            String arguments,
            boolean agentVisible,
            int hiddenLinks) {}

    /** The headline figures. */
    public record Figures(long totalAgents, long activeAgents, long totalAuditEntries, String denialRateLast24h) {}

    /**
     * One hour's bar: its calls as a bar {@code callsHeight} high, its denials in front of it; {@code hour} is the
     * hour's start (UTC), for the bar's tooltip and the table beside the chart.
     */
    public record HourBar(
            String hour, long calls, long denied, int x, int callsY, int callsHeight, int deniedY, int deniedHeight) {}

    /** One of the top agents, with its bar's width. */
    public record TopAgent(String agentId, String name, long calls, int width) {}

    /** One webhook endpoint. */
    public record WebhookRow(
            String id, String url, String eventTypes, String description, String status, String createdAt) {
        static WebhookRow of(Webhook w) {
            return new WebhookRow(
                    w.id(),
                    w.url().toString(),
                    w.eventTypes().isEmpty()
                            ? "every type"
                            : w.eventTypes().stream().map(EventType::wireName).collect(Collectors.joining(", ")),
                    w.description().orElse(""),
                    w.status().wireName(),
                    w.createdAt().toString());
        }
    }

    /** An organization, and the person's role in it (empty when not shown). */
    public record MembershipRow(String id, String name, String role, String createdAt) {
        static MembershipRow of(OrganizationRepository.Membership m) {
            return of(m.organization(), m.role());
        }

        static MembershipRow of(Organization o, String role) {
            return new MembershipRow(o.id(), o.name(), role, o.createdAt().toString());
        }
    }

    /** A member of an organization. */
    public record MemberRow(String userId, String username, String role, String joinedAt) {
        static MemberRow of(Member m) {
            return new MemberRow(
                    m.userId().value(), m.username(), m.role(), m.joinedAt().toString());
        }
    }

    /** A role of an organization: its permissions, and whether it is built in. */
    public record RoleRow(String name, String permissions, boolean builtIn) {
        static RoleRow of(Role r) {
            return new RoleRow(r.name(), String.join(", ", new java.util.TreeSet<>(r.permissions())), r.builtIn());
        }
    }

    /** One delivery of a webhook endpoint. */
    public record DeliveryRow(String eventId, String outcome, int attempts, String last, String finishedAt) {
        static DeliveryRow of(WebhookDelivery d) {
            return new DeliveryRow(
                    d.eventId(),
                    d.outcome(),
                    d.attempts(),
                    d.last(),
                    d.finishedAt().toString());
        }
    }

    /** One budgeted agent's spend this period against its budget, with its bar's width (300 at the budget). */
    public record CostRow(
            String agentId, String name, String spent, String budget, String period, int width, boolean over) {
        static CostRow of(DashboardStats.Cost c) {
            double share = c.maxCostUsd().signum() == 0
                    ? 1
                    : c.spentUsd().doubleValue() / c.maxCostUsd().doubleValue();
            return new CostRow(
                    c.agentId(),
                    c.name(),
                    c.spentUsd().toPlainString(),
                    c.maxCostUsd().toPlainString(),
                    c.period(),
                    (int) Math.max(2, Math.round(Math.min(1, share) * 300)),
                    c.spentUsd().compareTo(c.maxCostUsd()) > 0);
        }
    }
}
