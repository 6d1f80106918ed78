package dev.warden.api.sinks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.authorize.AuditPublisher;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.InputContract;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.SinkNames;
import dev.warden.runtime.consumer.SinkControl;
import dev.warden.runtime.consumer.SinkControls;
import dev.warden.runtime.db.Database;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /admin/v1/sinks} (docs/audit-sinks.md), the administrator's control of the external audit sinks: list them
 * with what was asked of each, pause and resume one, and replay one from a time (after a SIEM lost its index). The
 * sink's worker (on whichever instance runs the sinks role) obeys within about a second. Each change is audited
 * ({@code admin.sink.pause}, {@code admin.sink.resume}, {@code admin.sink.replay}).
 */
public final class SinkControlRoutes implements DeclaredService {
    private final Database db;
    private final Map<String, String> sinks;
    private final AuditPublisher audit;
    private final InstantSource clock;
    private final long maxBodyBytes;

    /** @param sinks each configured sink's name and type, in configuration order */
    public SinkControlRoutes(
            Database db, Map<String, String> sinks, AuditPublisher audit, InstantSource clock, long maxBodyBytes) {
        this.db = db;
        this.sinks = new LinkedHashMap<>(sinks);
        this.audit = audit;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.administrator("audit sinks"), this::list)
                .post("/{name}/pause", Access.administrator("audit sinks"), (req, res) -> pause(req, res, true))
                .post("/{name}/resume", Access.administrator("audit sinks"), (req, res) -> pause(req, res, false))
                .post("/{name}/replay", Access.administrator("audit sinks"), this::replay);
    }

    private void list(ServerRequest req, ServerResponse res) {
        ArrayNode body = Json.mapper().createArrayNode();
        sinks.forEach((name, type) -> body.add(render(name, type)));
        Responses.json(res, Status.OK_200, body);
    }

    private void pause(ServerRequest req, ServerResponse res, boolean paused) {
        String name = sink(req);
        if (req.content().hasEntity()) {
            JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of()).validate();
        }
        Instant now = clock.instant();
        String actor = AuthFilter.principal(req).subjectId();
        SinkControls.pause(db.dataSource(), key(name), paused, actor, now);
        record(paused ? "sink.pause" : "sink.resume", name, actor, Map.of(), now);
        Responses.json(res, Status.OK_200, render(name, sinks.get(name)));
    }

    private void replay(ServerRequest req, ServerResponse res) {
        String name = sink(req);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("from"));
        Optional<Instant> from = in.requiredValue("from", 64, InputContract::timestamp);
        Instant now = clock.instant();
        from.filter(at -> at.isAfter(now)).ifPresent(at -> in.error("from", "must not be in the future"));
        in.validate();
        String actor = AuthFilter.principal(req).subjectId();
        SinkControls.replay(db.dataSource(), key(name), from.orElseThrow(), actor, now);
        record("sink.replay", name, actor, Map.of("from", Json.timestamp(from.get())), now);
        Responses.json(res, Status.ACCEPTED_202, render(name, sinks.get(name)));
    }

    private String sink(ServerRequest req) {
        String name = req.path().pathParameters().get("name");
        if (!sinks.containsKey(name)) {
            throw new NotFoundException(
                    ErrorCode.NOT_FOUND, "no audit sink is named " + name + " (GET /admin/v1/sinks)");
        }
        return name;
    }

    private ObjectNode render(String name, String type) {
        SinkControl.State state = SinkControls.read(db.dataSource(), key(name));
        ObjectNode node = Json.mapper().createObjectNode().put("name", name).put("type", type);
        node.put("paused", state.paused());
        node.put("replayFrom", state.replayFrom().map(Json::timestamp).orElse(null));
        node.put("deadLetters", SinkNames.AUDIT_SINK_PREFIX + name);
        return node;
    }

    private static String key(String name) {
        return SinkNames.AUDIT_SINK_PREFIX + name;
    }

    private void record(String action, String name, String actor, Map<String, Object> extra, Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>(extra);
        parameters.put("sink", name);
        audit.publish(AuditEntry.administrative(
                Ids.mint("aud"), action, "", Optional.empty(), actor, "sink:" + name, parameters, at));
    }
}
