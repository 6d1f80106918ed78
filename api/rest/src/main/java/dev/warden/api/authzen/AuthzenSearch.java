package dev.warden.api.authzen;

import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.authzen.AuthzenRequests.Entity;
import dev.warden.api.authzen.AuthzenRequests.Evaluation;
import dev.warden.api.authzen.AuthzenRequests.Search;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.ResourcePattern;
import dev.warden.pipeline.contract.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The AuthZEN search endpoints (docs/authzen.md): which subjects, resources or actions would be allowed.
 *
 * <p>Warden holds no catalogue of resources: the candidates are what it knows. Subjects are the agents the caller may
 * see that stand for a subject of the type searched (its id for {@code agent}, metadata {@code authzen.subject}
 * otherwise). Resources are the concrete resources (no {@code *}) of that type named in the permissions of those
 * agents and of the subject (its delegated ones too). Actions are the action names (not {@code *}) of the same
 * permissions. Each candidate is asked as an evaluation would be, without deciding it
 * ({@link AuthorizationService#wouldAllow}): nothing is audited, no budget is consumed, and a permission that needs
 * an approval does not count. Results are sorted and paged by an opaque token bound to the search.
 */
final class AuthzenSearch {
    /** The most candidates one search considers; more is a 400 asking to narrow it. */
    static final int MAX_CANDIDATES = 10_000;

    private final AuthorizationService decisions;
    private final AgentService agents;
    private final AuthzenSubjects subjects;

    AuthzenSearch(AuthorizationService decisions, AgentService agents, AuthzenSubjects subjects) {
        this.decisions = decisions;
        this.agents = agents;
        this.subjects = subjects;
    }

    /** One page of results, each as the specification's entity ({@code type}/{@code id}, or {@code name}). */
    record Page(List<Map<String, String>> results, String nextToken, int total) {}

    Page search(Principal caller, Search search, String callerIp) {
        List<Map<String, String>> all = switch (search.target()) {
            case SUBJECT -> subjects(caller, search, callerIp);
            case RESOURCE -> resources(caller, search, callerIp);
            case ACTION -> actions(caller, search, callerIp);
        };
        String fingerprint = fingerprint(search);
        int from = search.pageToken().map(t -> offset(t, fingerprint)).orElse(0);
        int to = Math.min(all.size(), from + search.pageLimit());
        String next = to < all.size() ? token(to, fingerprint) : "";
        return new Page(List.copyOf(all.subList(Math.min(from, all.size()), to)), next, all.size());
    }

    private List<Map<String, String>> subjects(Principal caller, Search search, String callerIp) {
        String type = search.subject().type();
        TreeMap<String, AgentId> candidates = new TreeMap<>();
        for (Agent agent : visibleAgents(caller)) {
            AuthzenSubjects.idAs(agent, type).ifPresent(id -> candidates.putIfAbsent(id, agent.id()));
        }
        limit(candidates.size(), "subject.type");
        List<Map<String, String>> out = new ArrayList<>();
        candidates.forEach((id, agent) -> {
            Evaluation e = new Evaluation(
                    new Entity(type, id, search.subject().properties()),
                    search.action().orElseThrow(),
                    search.resource(),
                    search.context());
            if (decisions.wouldAllow(caller, e.toRequest(agent, callerIp))) {
                out.add(entity(type, id));
            }
        });
        return out;
    }

    private List<Map<String, String>> resources(Principal caller, Search search, String callerIp) {
        Optional<AgentId> subject = subject(caller, search);
        if (subject.isEmpty()) {
            return List.of();
        }
        String type = search.resource().type();
        String prefix = type + ":";
        TreeSet<String> candidates = new TreeSet<>();
        for (Permission p : known(caller, subject.get())) {
            String r = p.resource();
            if (r.startsWith(prefix) && ResourcePattern.resourceProblem(r).isEmpty()) {
                candidates.add(r.substring(prefix.length()));
            }
        }
        limit(candidates.size(), "resource.type");
        List<Map<String, String>> out = new ArrayList<>();
        for (String id : candidates) {
            Evaluation e = new Evaluation(
                    search.subject(),
                    search.action().orElseThrow(),
                    new Entity(type, id, search.resource().properties()),
                    search.context());
            if (decisions.wouldAllow(caller, e.toRequest(subject.get(), callerIp))) {
                out.add(entity(type, id));
            }
        }
        return out;
    }

    private List<Map<String, String>> actions(Principal caller, Search search, String callerIp) {
        Optional<AgentId> subject = subject(caller, search);
        if (subject.isEmpty()) {
            return List.of();
        }
        TreeSet<String> candidates = new TreeSet<>();
        for (Permission p : known(caller, subject.get())) {
            p.actions().stream().filter(a -> !a.equals("*")).forEach(candidates::add);
        }
        limit(candidates.size(), "action");
        List<Map<String, String>> out = new ArrayList<>();
        for (String name : candidates) {
            Evaluation e = new Evaluation(
                    search.subject(), new Entity("", name, Map.of()), search.resource(), search.context());
            if (decisions.wouldAllow(caller, e.toRequest(subject.get(), callerIp))) {
                out.add(Map.of("name", name));
            }
        }
        return out;
    }

    private static Map<String, String> entity(String type, String id) {
        Map<String, String> entity = new LinkedHashMap<>();
        entity.put("type", type);
        entity.put("id", id);
        return entity;
    }

    /** The given subject's agent; empty (no results, as the specification asks) when there is no single one. */
    private Optional<AgentId> subject(Principal caller, Search search) {
        return subjects.resolve(
                                caller,
                                search.subject().type(),
                                search.subject().id())
                        instanceof AuthzenSubjects.Resolved.Found found
                ? Optional.of(found.id())
                : Optional.empty();
    }

    /** The permissions candidates come from: the subject's (delegated too) and those of every agent the caller sees. */
    private List<Permission> known(Principal caller, AgentId subject) {
        List<Permission> out = new ArrayList<>(decisions.permissionsOf(caller, subject));
        visibleAgents(caller).forEach(a -> out.addAll(a.permissions()));
        return out;
    }

    private List<Agent> visibleAgents(Principal caller) {
        return agents.list(
                caller, new AgentService.Query(Optional.of(AgentStatus.ACTIVE), Optional.empty(), Optional.empty()));
    }

    private static void limit(int candidates, String field) {
        if (candidates > MAX_CANDIDATES) {
            throw InvalidInputException.field(
                    field,
                    "matches more than " + MAX_CANDIDATES + " candidates; search with a narrower caller (an agent's "
                            + "own token, or a user's)");
        }
    }

    /** A digest of everything but the page: a token is only good for the search that gave it. */
    private static String fingerprint(Search search) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(Json.mapper()
                    .writeValueAsString(List.of(
                            search.target().name(),
                            search.subject(),
                            search.action().map(Object.class::cast).orElse(""),
                            search.resource(),
                            search.context()))
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String token(int offset, String fingerprint) {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((offset + "." + fingerprint).getBytes(StandardCharsets.US_ASCII));
    }

    private static int offset(String token, String fingerprint) {
        try {
            String[] parts =
                    new String(Base64.getUrlDecoder().decode(token), StandardCharsets.US_ASCII).split("\\.", 2);
            int offset = Integer.parseInt(parts[0]);
            if (parts.length == 2 && parts[1].equals(fingerprint) && offset >= 0) {
                return offset;
            }
        } catch (IllegalArgumentException e) {
            // falls through: not a token of this search
        }
        throw InvalidInputException.field("page.token", "is not a next_token of this search (the request changed?)");
    }
}
