package dev.warden.sinks.external;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An audit entry as an OCSF 1.8.0 event (Open Cybersecurity Schema Framework; docs/audit-sinks.md, "OCSF"), the
 * shape Amazon Security Lake ingests and Splunk, Datadog and Elastic map:
 *
 * <ul>
 *   <li>a decision: API Activity (6003) with the {@code security_control} profile: the agent is the actor, the
 *       action the API operation, the resource the resource, the caller's address the source endpoint; allowed or
 *       denied in {@code action_id}, {@code disposition_id} and {@code authorizations}, the permission's detail in
 *       {@code policy}; a decision allowed through delegations lists them in {@code actor.authorizations};
 *   <li>a person's own account change ({@code admin.account.*}): Account Change (3001);
 *   <li>sign-ins and sign-outs ({@code admin.account.session.*}, an administrator's {@code admin-session.*}), refused
 *       sign-ins ({@code admin.account.signin.failed}, Failure) and OAuth grants ({@code admin.account.oauth-grant.*},
 *       OAuth 2.0, the client as the service): Authentication (3002); a lockout: Account Change (3001), Lock;
 *   <li>membership and role grants ({@code admin.member.*}, {@code admin.account.administrator.granted}): User Access
 *       Management (3005);
 *   <li>every other administrative change (agents, delegations, roles, organizations, approvals, sinks): Entity
 *       Management (3004).
 * </ul>
 *
 * <p>Every event carries the audit id as {@code metadata.uid}, so a receiver drops duplicates as with the other
 * formats, and the Warden entry itself under {@code unmapped.warden} (nothing is lost in the mapping). Stateless and
 * thread-safe.
 */
public final class OcsfEncoder {
    /** The OCSF release the events conform to. */
    public static final String VERSION = "1.8.0";

    private OcsfEncoder() {}

    /** The OCSF event of {@code entry}. */
    public static ObjectNode encode(AuditEntry entry, String productVersion) {
        String action = entry.action();
        if (!action.startsWith(AuditEntry.ADMINISTRATIVE_PREFIX)) {
            return decision(entry, productVersion);
        }
        String what = action.substring(AuditEntry.ADMINISTRATIVE_PREFIX.length());
        if (what.startsWith("account.admin-session.")) {
            boolean started = what.endsWith(".started");
            return authentication(
                    entry,
                    started ? 1 : 2,
                    started ? "administrator session started" : "administrator session ended",
                    productVersion);
        }
        if (what.startsWith("account.session.")) {
            boolean started = what.endsWith(".started");
            return authentication(
                    entry, started ? 1 : 2, started ? "session started" : "session ended", productVersion);
        }
        if (what.equals("account.signin.failed")) {
            return failedSignIn(entry, productVersion);
        }
        if (what.startsWith("account.oauth-grant.")) {
            return oauthGrant(entry, what.endsWith(".created"), productVersion);
        }
        if (what.equals("account.administrator.granted")) {
            return userAccess(entry, 1, "administrator", productVersion);
        }
        if (what.startsWith("account.")) {
            return accountChange(entry, what.substring("account.".length()), productVersion);
        }
        if (what.startsWith("member.")) {
            int activity = what.equals("member.remove") || what.equals("member.leave") ? 2 : 1;
            Object role = after(entry).map(a -> a.get("role")).orElse(null);
            return userAccess(entry, activity, role == null ? "member" : "organization role " + role, productVersion);
        }
        return entityManagement(entry, what, productVersion);
    }

    private static ObjectNode decision(AuditEntry entry, String productVersion) {
        boolean allowed = entry.result() == AuditResult.ALLOWED;
        String reason = entry.reason().orElse("");
        int activity = switch (entry.action().toLowerCase(Locale.ROOT)) {
            case "create", "add", "post" -> 1;
            case "read", "get", "list", "view", "search" -> 2;
            case "update", "write", "edit", "patch", "put" -> 3;
            case "delete", "remove" -> 4;
            default -> 99;
        };
        ObjectNode event = base(
                entry,
                6003,
                "API Activity",
                6,
                "Application Activity",
                activity,
                activity == 99 ? entry.action() : null,
                productVersion,
                true);
        event.put(
                "message",
                "agent " + entry.agentId() + " " + entry.action() + " " + entry.resource() + ": "
                        + (allowed ? "allowed" : "denied " + reason));
        event.put("status_id", allowed ? 1 : 2).put("status", allowed ? "Success" : "Failure");
        if (!allowed) {
            event.put("status_detail", reason);
        }
        event.put("action_id", allowed ? 1 : 2).put("action", allowed ? "Allowed" : "Denied");
        int disposition = allowed
                ? 1
                : switch (reason) {
                    case "RATE_LIMITED", "BUDGET_EXCEEDED" -> 2;
                    case "APPROVAL_REQUIRED" -> 14;
                    default -> 26;
                };
        event.put("disposition_id", disposition)
                .put(
                        "disposition",
                        switch (disposition) {
                            case 1 -> "Allowed";
                            case 2 -> "Blocked";
                            case 14 -> "Delayed";
                            default -> "Unauthorized";
                        });
        ObjectNode actor = event.putObject("actor");
        ObjectNode agent = actor.putObject("user");
        agent.put("uid", entry.agentId()).put("type_id", 99).put("type", "AI agent");
        entry.userId().ifPresent(owner -> actor.put("invoked_by", owner));
        if (!entry.callerId().equals(entry.agentId())) {
            actor.put("app_uid", entry.callerId());
        }
        // The agent acts with its delegation chain: one authorization per link, nearest first.
        if (!entry.delegationChain().isEmpty()) {
            com.fasterxml.jackson.databind.node.ArrayNode links = actor.putArray("authorizations");
            for (String link : entry.delegationChain()) {
                ObjectNode authorization = links.addObject().put("decision", "delegated");
                authorization.putObject("policy").put("uid", link).put("name", "delegation " + link);
            }
        }
        ObjectNode api = event.putObject("api");
        api.put("operation", entry.action());
        api.putObject("service").put("name", "Warden").put("uid", "warden.authorize");
        event.putArray("resources")
                .addObject()
                .put("uid", entry.resource())
                .put("name", entry.resource())
                .put(
                        "type",
                        entry.resource().contains(":")
                                ? entry.resource().substring(0, entry.resource().indexOf(':'))
                                : entry.resource());
        srcEndpoint(event, entry);
        ObjectNode authorization = event.putArray("authorizations").addObject();
        authorization.put("decision", allowed ? "allowed" : "denied");
        entry.reasonDetail().ifPresent(detail -> {
            authorization.putObject("policy").put("name", detail);
            event.putObject("policy").put("name", detail).put("is_applied", true);
        });
        event.put("duration", Math.round(entry.durationMs()));
        return event;
    }

    private static ObjectNode accountChange(AuditEntry entry, String what, String productVersion) {
        int activity = switch (what) {
            case "password.changed" -> 3;
            case "password.reset" -> 4;
            case "totp.enrolled", "passkey.added" -> 10;
            case "totp.removed", "passkey.removed" -> 11;
            case "locked" -> 9;
            default -> 99;
        };
        ObjectNode event = base(
                entry,
                3001,
                "Account Change",
                3,
                "Identity & Access Management",
                activity,
                activity == 99 ? what : null,
                productVersion,
                false);
        event.put("message", "account change " + what);
        event.put("status_id", 1).put("status", "Success");
        person(event.putObject("user"), entry);
        actor(event, entry);
        srcEndpoint(event, entry);
        return event;
    }

    private static ObjectNode authentication(AuditEntry entry, int activity, String message, String productVersion) {
        ObjectNode event = authenticationBase(entry, activity, productVersion);
        event.put("message", message);
        event.put("status_id", 1).put("status", "Success");
        person(event.putObject("user"), entry);
        target(entry)
                .filter(id -> !id.isEmpty())
                .ifPresent(id -> event.putObject("session").put("uid", id));
        actor(event, entry);
        srcEndpoint(event, entry);
        return event;
    }

    /** A refused sign-in: Logon, Failure, with the username as sent (it names no account) and the one reason. */
    private static ObjectNode failedSignIn(AuditEntry entry, String productVersion) {
        ObjectNode event = authenticationBase(entry, 1, productVersion);
        Map<String, Object> parameters = entry.parameters();
        event.put("message", "sign-in refused");
        event.put("status_id", 2).put("status", "Failure");
        event.put("status_detail", String.valueOf(parameters.get("reason")));
        event.putObject("user").put("name", String.valueOf(parameters.get("username")));
        srcEndpoint(event, entry);
        return event;
    }

    /** A person authorized an OAuth client (Logon, OAuth 2.0, the client as the service), or the grant ended. */
    private static ObjectNode oauthGrant(AuditEntry entry, boolean created, String productVersion) {
        ObjectNode event = authenticationBase(entry, created ? 1 : 2, productVersion);
        String client = target(entry).orElse("");
        event.put("message", (created ? "OAuth grant to " : "OAuth grant ended for ") + client);
        event.put("status_id", 1).put("status", "Success");
        event.put("auth_protocol_id", 6).put("auth_protocol", "OAUTH 2.0");
        person(event.putObject("user"), entry);
        event.putObject("service").put("uid", client).put("name", client);
        Object grant = entry.parameters().get("grant");
        if (grant instanceof String id) {
            event.putObject("session").put("uid", id);
        }
        actor(event, entry);
        srcEndpoint(event, entry);
        return event;
    }

    private static ObjectNode authenticationBase(AuditEntry entry, int activity, String productVersion) {
        return base(
                entry,
                3002,
                "Authentication",
                3,
                "Identity & Access Management",
                activity,
                null,
                productVersion,
                false);
    }

    private static ObjectNode userAccess(AuditEntry entry, int activity, String privilege, String productVersion) {
        ObjectNode event = base(
                entry,
                3005,
                "User Access Management",
                3,
                "Identity & Access Management",
                activity,
                null,
                productVersion,
                false);
        event.put("message", (activity == 1 ? "granted " : "revoked ") + privilege);
        event.put("status_id", 1).put("status", "Success");
        ObjectNode user = event.putObject("user");
        user.put("uid", entry.userId().orElse(entry.callerId()));
        event.putArray("privileges").add(privilege);
        event.putObject("resource").put("uid", entry.resource()).put("name", entry.resource());
        actor(event, entry);
        srcEndpoint(event, entry);
        return event;
    }

    private static ObjectNode entityManagement(AuditEntry entry, String what, String productVersion) {
        String verb = what.contains(".") ? what.substring(what.lastIndexOf('.') + 1) : what;
        int activity = switch (verb) {
            case "create", "add" -> 1;
            case "delete", "remove" -> 4;
            case "suspend", "pause" -> 12;
            case "resume" -> 13;
            case "revoke" -> 11;
            default -> 3;
        };
        ObjectNode event = base(
                entry,
                3004,
                "Entity Management",
                3,
                "Identity & Access Management",
                activity,
                null,
                productVersion,
                false);
        event.put("message", what.replace('.', ' '));
        event.put("status_id", 1).put("status", "Success");
        String kind = what.contains(".") ? what.substring(0, what.indexOf('.')) : what;
        ObjectNode entity = event.putObject("entity");
        String target = target(entry).orElse(entry.resource());
        entity.put("uid", target).put("name", target).put("type", kind);
        if (kind.equals("organization")) {
            entity.put("type_id", 4);
        }
        Map<String, Object> parameters = entry.parameters();
        Object note = parameters.get("note");
        if (note instanceof String text && !text.isEmpty()) {
            event.put("comment", text);
        }
        actor(event, entry);
        srcEndpoint(event, entry);
        return event;
    }

    /** The base event attributes every class shares; {@code securityControl} adds the profile. */
    private static ObjectNode base(
            AuditEntry entry,
            int classUid,
            String className,
            int categoryUid,
            String categoryName,
            int activity,
            String otherActivity,
            String productVersion,
            boolean securityControl) {
        ObjectNode event = Json.mapper().createObjectNode();
        event.put("class_uid", classUid).put("class_name", className);
        event.put("category_uid", categoryUid).put("category_name", categoryName);
        event.put("activity_id", activity);
        if (otherActivity != null) {
            event.put("activity_name", otherActivity);
        }
        event.put("type_uid", classUid * 100L + activity);
        event.put("time", entry.timestamp().toEpochMilli());
        event.put("severity_id", 1).put("severity", "Informational");
        ObjectNode metadata = event.putObject("metadata");
        metadata.put("uid", entry.id()).put("version", VERSION).put("log_name", "warden.audit");
        ObjectNode product = metadata.putObject("product");
        product.put("name", "Warden").put("vendor_name", "Warden").put("version", productVersion);
        if (securityControl) {
            metadata.putArray("profiles").add("security_control");
        }
        event.putObject("unmapped").set("warden", AuditEntryCodec.toJson(entry));
        return event;
    }

    /** Who acted on an administrative change: a person (the caller). */
    private static void actor(ObjectNode event, AuditEntry entry) {
        ObjectNode user = event.putObject("actor").putObject("user");
        user.put("uid", entry.callerId());
        Object actor = entry.parameters().get("actor");
        if (actor instanceof Map<?, ?> a && "admin".equals(a.get("kind"))) {
            user.put("type_id", 2).put("type", "Admin");
        }
    }

    private static void person(ObjectNode user, AuditEntry entry) {
        user.put("uid", entry.userId().orElse(entry.callerId()));
    }

    private static void srcEndpoint(ObjectNode event, AuditEntry entry) {
        Optional<String> ip = entry.callerIp().or(entry::ip);
        ObjectNode endpoint = event.putObject("src_endpoint");
        ip.ifPresentOrElse(a -> endpoint.put("ip", a), () -> endpoint.put("name", "unknown"));
        entry.userAgent().ifPresent(ua -> event.putObject("http_request").put("user_agent", ua));
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> after(AuditEntry entry) {
        return entry.parameters().get("after") instanceof Map<?, ?> m
                ? Optional.of((Map<String, Object>) m)
                : Optional.empty();
    }

    private static Optional<String> target(AuditEntry entry) {
        return entry.parameters().get("target") instanceof Map<?, ?> t && t.get("id") instanceof String id
                ? Optional.of(id)
                : Optional.empty();
    }
}
