package dev.warden.api.deadletters;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * {@code GET /admin/v1/dead-letters?sink=&limit=} (also at {@code /admin/dead-letters}, deprecated): the records sinks gave up on ({@code sink_dead_letters}, see
 * docs/errors.md), newest first, for the administrator only. Each shows where the record was, why it was
 * refused, and its bytes: as text ({@code value}, invalid UTF-8 replaced) and exactly ({@code valueBase64}).
 */
public final class DeadLetterRoutes implements DeclaredService {
    private static final int MAX_LIMIT = 1000;

    private final DeadLetterRepository deadLetters;

    public DeadLetterRoutes(DeadLetterRepository deadLetters) {
        this.deadLetters = deadLetters;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.administrator("dead letters"), this::list);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<String> sink = Params.query(req, "sink", v -> v);
        int limit = Params.query(req, "limit", DeadLetterRoutes::limit).orElse(100);
        ArrayNode body = Json.mapper().createArrayNode();
        deadLetters.newest(sink, limit).forEach(d -> body.add(render(d)));
        Responses.json(res, Status.OK_200, body);
    }

    private static ObjectNode render(DeadLetterRepository.StoredDeadLetter d) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", Long.toString(d.id()))
                .put("sink", d.sink())
                .put("topic", d.topic())
                .put("partition", d.partition())
                .put("offset", d.offset());
        node.put("key", d.key().map(k -> new String(k, StandardCharsets.UTF_8)).orElse(null));
        node.put(
                "value",
                d.value().map(v -> new String(v, StandardCharsets.UTF_8)).orElse(null));
        node.put(
                "valueBase64",
                d.value().map(v -> Base64.getEncoder().encodeToString(v)).orElse(null));
        node.put("error", d.error());
        node.put("failedAt", Json.timestamp(d.failedAt()));
        return node;
    }

    private static int limit(String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("must be a whole number from 1 to " + MAX_LIMIT);
    }
}
