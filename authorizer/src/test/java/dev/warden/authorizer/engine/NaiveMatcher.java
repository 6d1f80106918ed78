package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Permission;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A deliberately simple reference for the engine: splits patterns and resources into segments and compares
 * them one by one, and states the documented order without sharing code with the engine.
 */
final class NaiveMatcher {
    /** The documented order up to the pattern text (the part a reader can check by eye). */
    static final Comparator<EffectiveGrant> DOCUMENTED_ORDER = Comparator.comparing(EffectiveGrant::isConstrained)
            .thenComparing(g -> literalSegments(g.permission().resource()), Comparator.reverseOrder())
            .thenComparing(g -> g.permission().resource().endsWith("*"))
            .thenComparing(g -> g.permission().resource());

    private NaiveMatcher() {}

    static boolean allows(Permission permission, String action, String resource) {
        return matches(permission.resource(), resource)
                && (permission.actions().contains("*") || permission.actions().contains(action));
    }

    static boolean matches(String pattern, String resource) {
        if (pattern.equals("*")) {
            return true;
        }
        String[] p = pattern.split(":");
        String[] r = resource.split(":");
        if (p[p.length - 1].equals("*")) {
            String[] literal = Arrays.copyOf(p, p.length - 1);
            return r.length > literal.length && Arrays.equals(literal, Arrays.copyOf(r, literal.length));
        }
        return Arrays.equals(p, r);
    }

    static int literalSegments(String pattern) {
        if (pattern.equals("*")) {
            return 0;
        }
        String[] p = pattern.split(":");
        return p[p.length - 1].equals("*") ? p.length - 1 : p.length;
    }
}
