package dev.warden.authorizer.bench;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one policy every benchmark evaluates, in a library-neutral form, and its translation into Warden's
 * {@link CompiledPolicy}, a Cedar policy set and jCasbin policy lines.
 *
 * <p>The agent {@value #AGENT} holds:
 * <ul>
 *   <li>100 own permissions over 20 namespaces {@code mcp:svc0} .. {@code mcp:svc19}; per namespace one wildcard
 *       {@code mcp:svcN:*} allowing {@code read} (with a {@code maxCallsPerHour} on every fifth namespace) and four
 *       exact resources {@code mcp:svcN:res:0..3} allowing {@code write} (even) or {@code delete} (odd);</li>
 *   <li>4 grants reached through a depth-3 delegation chain
 *       {@code root --d1--> mid1 --d2--> mid2 --d3--> agent}, each step narrowing the one above it, with
 *       hourly budgets on the root grant and on d2.</li>
 * </ul>
 * Every grant names one action, so each maps to exactly one Cedar {@code permit} and one jCasbin line
 * (104 of each). Cedar and jCasbin get the delegated grants already flattened to their final, narrowest form: the
 * chain is Warden's own concept (resolved when the policy is compiled), so the baselines are not charged for it.
 */
final class BenchPolicy {
    static final String AGENT = "agt_bench";
    static final int NAMESPACES = 20;
    static final int EXACT_PER_NAMESPACE = 4;

    /** One grant: a resource pattern ({@code a:b:c} or {@code a:b:*}) and a single action. */
    record Rule(String resource, String action, boolean wildcard, boolean delegated) {}

    /** The three benchmarked decisions. */
    enum Query {
        /** A hit on one of the agent's own (exact, unconstrained) grants. */
        DIRECT("write", "mcp:svc17:res:2", true),
        /** A hit that only a grant reached through the depth-3 delegation chain allows. */
        CHAIN("read", "mcp:shared:docs:runbook", true),
        /** No grant allows it: every candidate is tried. */
        MISS("read", "mcp:svc99:res:1", false);

        final String action;
        final String resource;
        final boolean allowed;

        Query(String action, String resource, boolean allowed) {
            this.action = action;
            this.resource = resource;
            this.allowed = allowed;
        }

        static Query of(String scenario) {
            return valueOf(scenario.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** The final resource pattern and action of each delegation chain. */
    private static final String[][] CHAINS = {
        {"mcp:shared:docs:*", "read"},
        {"mcp:shared:wiki:*", "read"},
        {"mcp:shared:tickets:42", "write"},
        {"mcp:shared:builds:*", "read"},
    };

    private BenchPolicy() {}

    /** The 104 rules, own first. */
    static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        for (int n = 0; n < NAMESPACES; n++) {
            rules.add(new Rule("mcp:svc" + n + ":*", "read", true, false));
            for (int m = 0; m < EXACT_PER_NAMESPACE; m++) {
                rules.add(new Rule("mcp:svc" + n + ":res:" + m, m % 2 == 0 ? "write" : "delete", false, false));
            }
        }
        for (String[] chain : CHAINS) {
            rules.add(new Rule(chain[0], chain[1], chain[0].endsWith(":*"), true));
        }
        return rules;
    }

    /** Warden: the agent's effective grants, the delegated ones built through a real depth-3 chain. */
    static CompiledPolicy warden() {
        AgentId agent = AgentId.of(AGENT);
        AgentId root = AgentId.of("agt_bench_root");
        AgentId mid1 = AgentId.of("agt_bench_mid1");
        AgentId mid2 = AgentId.of("agt_bench_mid2");
        List<EffectiveGrant> grants = new ArrayList<>();
        int chain = 0;
        for (Rule rule : rules()) {
            if (!rule.delegated()) {
                int namespace = Integer.parseInt(rule.resource().split(":")[1].substring("svc".length()));
                Constraints constraints =
                        rule.wildcard() && namespace % 5 == 0 ? Constraints.maxCallsPerHour(500) : Constraints.NONE;
                grants.add(EffectiveGrant.direct(
                        agent, new Permission(rule.resource(), List.of(rule.action()), constraints)));
                continue;
            }
            String[] segments = rule.resource().split(":");
            String area = segments[0] + ":" + segments[1] + ":" + segments[2] + ":*";
            EffectiveGrant grant = EffectiveGrant.direct(
                            root,
                            new Permission(
                                    "mcp:shared:*",
                                    List.of("read", "write", "delete"),
                                    Constraints.maxCallsPerHour(10_000)))
                    .delegate(
                            DelegationId.of("dlg_bench_" + chain + "_1"),
                            mid1,
                            new Permission(area, List.of("read", "write"), Constraints.NONE))
                    .delegate(
                            DelegationId.of("dlg_bench_" + chain + "_2"),
                            mid2,
                            new Permission(area, List.of(rule.action()), Constraints.maxCallsPerHour(1_000)))
                    .delegate(
                            DelegationId.of("dlg_bench_" + chain + "_3"),
                            agent,
                            new Permission(rule.resource(), List.of(rule.action()), Constraints.NONE));
            if (grant.depth() != 3) {
                throw new IllegalStateException("expected a depth-3 grant, got " + grant.depth());
            }
            grants.add(grant);
            chain++;
        }
        CompiledPolicy policy = CompiledPolicy.compile(grants);
        if (policy.size() != 104) {
            throw new IllegalStateException("expected 104 grants, got " + policy.size());
        }
        return policy;
    }

    /**
     * Cedar: one {@code permit} per rule. Exact resources use the policy scope ({@code resource == ...}); wildcards
     * use {@code like} on the resource's {@code path} attribute (Cedar policies cannot read an entity's id as text).
     */
    static String cedar() {
        StringBuilder out = new StringBuilder();
        for (Rule rule : rules()) {
            out.append("permit(principal == Agent::\"")
                    .append(AGENT)
                    .append("\", action == Action::\"")
                    .append(rule.action())
                    .append("\", ");
            if (rule.wildcard()) {
                out.append("resource) when { resource.path like \"")
                        .append(rule.resource())
                        .append("\" };\n");
            } else {
                out.append("resource == Resource::\"").append(rule.resource()).append("\");\n");
            }
        }
        return out.toString();
    }

    /** jCasbin: an ACL model with {@code keyMatch} on the resource (":*" is a prefix match), one line per rule. */
    static final String CASBIN_MODEL = """
            [request_definition]
            r = sub, obj, act

            [policy_definition]
            p = sub, obj, act

            [policy_effect]
            e = some(where (p.eft == allow))

            [matchers]
            m = r.sub == p.sub && r.act == p.act && keyMatch(r.obj, p.obj)
            """;

    /** The calls every baseline must decide exactly as Warden does before it is measured. */
    static List<String[]> probes() {
        List<String[]> probes = new ArrayList<>();
        String[] actions = {"read", "write", "delete", "admin"};
        for (int n = 0; n < NAMESPACES + 2; n++) {
            for (String action : actions) {
                for (int m = 0; m < EXACT_PER_NAMESPACE + 2; m++) {
                    probes.add(new String[] {action, "mcp:svc" + n + ":res:" + m});
                }
                probes.add(new String[] {action, "mcp:svc" + n + ":other"});
                probes.add(new String[] {action, "mcp:svc" + n + "x:res:0"});
            }
        }
        for (String action : actions) {
            for (String resource : new String[] {
                "mcp:shared:docs:a",
                "mcp:shared:docs:a:b",
                "mcp:shared:wiki:home",
                "mcp:shared:tickets:42",
                "mcp:shared:tickets:43",
                "mcp:shared:builds:7",
                "mcp:shared:other:x",
                "mcp:shared:docs",
                "other:svc1:res:0"
            }) {
                probes.add(new String[] {action, resource});
            }
        }
        for (Query query : Query.values()) {
            probes.add(new String[] {query.action, query.resource});
        }
        return probes;
    }
}
