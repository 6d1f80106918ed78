package dev.warden.api.config;

import dev.warden.pipeline.contract.WireEnum;
import dev.warden.sinks.external.AuditSinkSpec;
import io.helidon.config.Config;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code warden.sinks.audit}: a list of external audit sinks, each {@code {type, url, secret?,
 * options?: {key: value}}} (docs/audit-sinks.md). A bad entry is an error naming its index and key.
 */
public final class AuditSinkSpecs {
    private AuditSinkSpecs() {}

    /** The specs under {@code node} (empty when the node is missing). */
    public static List<AuditSinkSpec> from(Config node) {
        List<AuditSinkSpec> specs = new ArrayList<>();
        List<Config> items = node.asNodeList().orElse(List.of());
        for (int i = 0; i < items.size(); i++) {
            specs.add(one(items.get(i), "warden.sinks.audit[" + i + "]"));
        }
        return List.copyOf(specs);
    }

    private static AuditSinkSpec one(Config item, String where) {
        String typeName = item.get("type")
                .asString()
                .orElseThrow(() -> new IllegalArgumentException(where + ".type is required"));
        AuditSinkSpec.Type type = WireEnum.parse(AuditSinkSpec.Type.class, typeName)
                .orElseThrow(() -> new IllegalArgumentException(
                        where + ".type must be one of " + WireEnum.choices(AuditSinkSpec.Type.class)));
        URI url;
        try {
            url = URI.create(item.get("url")
                    .asString()
                    .orElseThrow(() -> new IllegalArgumentException(where + ".url is required")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ".url: " + e.getMessage(), e);
        }
        AuditSinkSpec.Builder b = AuditSinkSpec.builder(type, url);
        item.get("secret").asString().ifPresent(b::secret);
        Map<String, String> options = item.get("options").detach().asMap().orElse(Map.of());
        options.forEach(b::option);
        return b.build();
    }
}
