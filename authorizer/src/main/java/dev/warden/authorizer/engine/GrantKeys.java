package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Permission;
import java.util.TreeSet;

/**
 * The stable text that names one grant: {@code origin|actions|resource}, for example
 * {@code agent:agt_1|4:read5:write|mcp:github:*}.
 *
 * <p>Actions are distinct, sorted and length-prefixed, so no action name (which may hold any character)
 * can run into its neighbour; the resource comes last so it may contain {@code '|'}; origin keys never
 * contain {@code '|'} (ids are {@code [A-Za-z0-9._:@-]}). The limit is not part of the key: raising a
 * grant's {@code maxCallsPerHour} keeps its counter.
 */
final class GrantKeys {
    private GrantKeys() {}

    static String of(GrantOrigin origin, Permission permission) {
        StringBuilder key = new StringBuilder(64).append(origin.key()).append('|');
        for (String action : new TreeSet<>(permission.actions())) {
            key.append(action.length()).append(':').append(action);
        }
        return key.append('|').append(permission.resource()).toString();
    }
}
