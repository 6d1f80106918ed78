package dev.warden.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A permission in the command line's compact form, {@code <resource pattern>=<action>[,<action>...]}: for example
 * {@code mcp:github:*=read,write}. The resource is everything before the last {@code =}, so patterns may hold any
 * other character; actions are separated by commas, and blanks around them are ignored.
 */
public final class PermissionSpec {
    private PermissionSpec() {}

    /** The permission as the API takes it: {@code {"resource": …, "actions": […]}}. */
    public static Map<String, Object> parse(String spec) {
        int eq = spec.lastIndexOf('=');
        if (eq <= 0 || eq == spec.length() - 1) {
            throw new IllegalArgumentException(
                    "a permission is <resource>=<action>[,<action>...], like mcp:github:*=read,write; got '" + spec
                            + "'");
        }
        String resource = spec.substring(0, eq).strip();
        List<String> actions = new ArrayList<>();
        for (String action : spec.substring(eq + 1).split(",")) {
            String a = action.strip();
            if (a.isEmpty()) {
                throw new IllegalArgumentException("an empty action in '" + spec + "'");
            }
            actions.add(a);
        }
        if (resource.isEmpty()) {
            throw new IllegalArgumentException("an empty resource in '" + spec + "'");
        }
        Map<String, Object> permission = new LinkedHashMap<>();
        permission.put("resource", resource);
        permission.put("actions", actions);
        return permission;
    }

    /** Every spec parsed, in order. */
    public static List<Map<String, Object>> parseAll(List<String> specs) {
        List<Map<String, Object>> permissions = new ArrayList<>();
        for (String spec : specs) {
            permissions.add(parse(spec));
        }
        return permissions;
    }
}
