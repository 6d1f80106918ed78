package dev.warden.api.organizations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.pipeline.contract.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** JSON of organizations, members and roles (docs/organizations.md), and the request bodies that change them. */
final class OrganizationJson {
    /** Longest organization name. */
    static final int MAX_NAME = 200;
    /** Most permissions in one custom role (the catalogue is smaller). */
    static final int MAX_PERMISSIONS = 32;

    private OrganizationJson() {}

    static ObjectNode render(Organization organization, Optional<String> role, Optional<String> active) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", organization.id())
                .put("name", organization.name())
                .put("createdBy", organization.createdBy().value())
                .put("createdAt", Json.timestamp(organization.createdAt()));
        role.ifPresent(r -> node.put("role", r));
        active.ifPresent(a -> node.put("active", a.equals(organization.id())));
        return node;
    }

    static ArrayNode renderMemberships(List<OrganizationRepository.Membership> memberships, Optional<String> active) {
        ArrayNode out = Json.mapper().createArrayNode();
        memberships.forEach(
                m -> out.add(render(m.organization(), Optional.of(m.role()), Optional.of(active.orElse("")))));
        return out;
    }

    static ObjectNode render(Member member) {
        return Json.mapper()
                .createObjectNode()
                .put("userId", member.userId().value())
                .put("username", member.username())
                .put("role", member.role())
                .put("joinedAt", Json.timestamp(member.joinedAt()));
    }

    static ArrayNode renderMembers(List<Member> members) {
        ArrayNode out = Json.mapper().createArrayNode();
        members.forEach(m -> out.add(render(m)));
        return out;
    }

    static ObjectNode render(Role role) {
        ObjectNode node =
                Json.mapper().createObjectNode().put("name", role.name()).put("builtIn", role.builtIn());
        ArrayNode permissions = node.putArray("permissions");
        role.permissions().stream().sorted().forEach(permissions::add);
        return node;
    }

    static ArrayNode renderRoles(List<Role> roles) {
        ArrayNode out = Json.mapper().createArrayNode();
        roles.forEach(r -> out.add(render(r)));
        return out;
    }

    /** {@code permissions}: an array of 0 to {@link #MAX_PERMISSIONS} strings (their names are checked later). */
    static List<String> permissions(JsonInput in) {
        Optional<JsonNode> raw = in.raw("permissions");
        List<String> names = new ArrayList<>();
        if (raw.isEmpty() || !raw.get().isArray() || raw.get().size() > MAX_PERMISSIONS) {
            in.error("permissions", "must be an array of at most " + MAX_PERMISSIONS + " permission names");
            return names;
        }
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode item = raw.get().get(i);
            if (!item.isTextual()
                    || item.textValue().isEmpty()
                    || item.textValue().length() > 64) {
                in.error("permissions[" + i + "]", "must be a permission name");
            } else {
                names.add(item.textValue());
            }
        }
        return names;
    }
}
