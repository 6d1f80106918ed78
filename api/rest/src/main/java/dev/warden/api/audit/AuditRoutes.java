package dev.warden.api.audit;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.Problems;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.consumer.SinkCounters;
import io.helidon.common.media.type.MediaType;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /audit} (filtered page, newest first), {@code GET /audit/export} (streamed JSON or CSV
 * download) and {@code GET /audit/stats} (the audit counters of this process). A caller only ever sees
 * entries of agents they may see ({@link AuditScope}). A decision answered by any instance is visible to a
 * following read on every instance: a read first waits (bounded) until the writer has stored the audit topic up
 * to its end as it was when the read started ({@link AuditTopicEnd}).
 */
public final class AuditRoutes implements DeclaredService {
    private static final MediaType CSV = MediaTypes.create("text", "csv");

    static final List<String> CSV_HEADER = List.of(
            "id",
            "agentId",
            "userId",
            "callerId",
            "action",
            "resource",
            "parameters",
            "result",
            "reason",
            "durationMs",
            "tokensCost",
            "timestamp",
            "ip",
            "userAgent",
            "callerIp",
            "reasonDetail");

    private final JdbcAuditReader reader;
    private final AuditTopicEnd written;
    private final SinkCounters counters;
    private final Duration readYourWritesTimeout;

    public AuditRoutes(
            JdbcAuditReader reader, AuditTopicEnd written, SinkCounters counters, Duration readYourWritesTimeout) {
        this.reader = reader;
        this.written = written;
        this.counters = counters;
        this.readYourWritesTimeout = readYourWritesTimeout;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.scope("audit:read"), this::query)
                .get("/export", Access.scope("audit:read"), this::export)
                // Process-wide counters say how busy the whole deployment is: the administrator's alone.
                .get("/stats", Access.administrator("the audit statistics"), this::stats);
    }

    private void query(ServerRequest req, ServerResponse res) {
        AuditScope scope = AuditScope.of(AuthFilter.principal(req));
        AuditQuery q = parse(req, true);
        reader.awaitWritten(written.lastOffsets(), readYourWritesTimeout);
        ArrayNode body = Json.mapper().createArrayNode();
        reader.query(scope, q).forEach(e -> body.add(AuditEntryCodec.toJson(e)));
        Responses.json(res, Status.OK_200, body);
    }

    private void export(ServerRequest req, ServerResponse res) {
        AuditScope scope = AuditScope.of(AuthFilter.principal(req));
        Optional<String> format = Params.query(req, "format", f -> {
                    if (!f.equals("json") && !f.equals("csv")) {
                        throw new IllegalArgumentException("must be json or csv");
                    }
                    return f;
                })
                .or(() -> negotiated(req));
        if (format.isEmpty()) {
            Problems.notAcceptable(req, res, "the export is application/json or text/csv (Accept, or ?format=)");
            return;
        }
        export(req, res, scope, format.get());
    }

    /**
     * The export's format from {@code Accept} when the query does not name one (the query's {@code format} is kept
     * for old clients): CSV when {@code text/csv} is preferred, JSON when JSON is acceptable or nothing is said;
     * empty when neither is acceptable.
     */
    private static Optional<String> negotiated(ServerRequest req) {
        if (!req.headers().contains(HeaderNames.ACCEPT)) {
            return Optional.of("json");
        }
        try {
            return req.headers()
                    .bestAccepted(MediaTypes.APPLICATION_JSON, CSV)
                    .map(type -> type.equals(CSV) ? "csv" : "json");
        } catch (RuntimeException e) {
            // Helidon's parser refuses it (a bad parameter, no type): the caller's input, not a server failure
            throw InvalidInputException.field("Accept", "is not a list of media types (RFC 9110 12.5.1)");
        }
    }

    private void export(ServerRequest req, ServerResponse res, AuditScope scope, String format) {
        AuditQuery q = parse(req, false);
        reader.awaitWritten(written.lastOffsets(), readYourWritesTimeout);
        String filename = "warden-audit-" + q.since().map(Instant::toString).orElse("start") + "-"
                + q.until().map(Instant::toString).orElse("now") + "." + format;
        res.header(HeaderNames.CONTENT_TYPE, format.equals("csv") ? "text/csv; charset=utf-8" : "application/json");
        res.header(HeaderNames.VARY, "Accept");
        res.header(HeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + filename.replace(':', '-') + "\"");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        try (OutputStream out = res.outputStream()) {
            if (format.equals("csv")) {
                writeCsv(scope, q, out);
            } else {
                writeJson(scope, q, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeCsv(AuditScope scope, AuditQuery q, OutputStream out) throws IOException {
        Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        CsvWriter csv = new CsvWriter(writer);
        csv.row(CSV_HEADER);
        reader.export(scope, q, entry -> {
            try {
                csv.row(csvFields(entry));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        writer.flush();
    }

    private void writeJson(AuditScope scope, AuditQuery q, OutputStream out) throws IOException {
        try (JsonGenerator gen = Json.mapper().getFactory().createGenerator(out)) {
            gen.writeStartArray();
            reader.export(scope, q, entry -> {
                try {
                    gen.writeTree(AuditEntryCodec.toJson(entry));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            gen.writeEndArray();
        }
    }

    static List<String> csvFields(AuditEntry e) {
        String parameters;
        try {
            parameters = Json.mapper().writeValueAsString(e.parameters());
        } catch (JsonProcessingException ex) {
            throw new UncheckedIOException(ex);
        }
        return List.of(
                e.id(),
                e.agentId(),
                e.userId().orElse(""),
                e.callerId(),
                e.action(),
                e.resource(),
                parameters,
                e.result().wireName(),
                e.reason().orElse(""),
                Double.toString(e.durationMs()),
                Long.toString(e.tokensCost()),
                Json.timestamp(e.timestamp()),
                e.ip().orElse(""),
                e.userAgent().orElse(""),
                e.callerIp().orElse(""),
                e.reasonDetail().orElse(""));
    }

    private void stats(ServerRequest req, ServerResponse res) {
        SinkCounters.Snapshot s = counters.snapshot();
        Responses.json(
                res,
                Status.OK_200,
                Json.mapper()
                        .createObjectNode()
                        .put("AuditEmitted", s.auditEmitted())
                        .put("AuditWritten", s.auditWritten())
                        .put("AuditDropped", s.auditDropped())
                        .put("AuditFailed", s.auditFailed())
                        .put("AuditSinkFailed", s.auditSinkFailed()));
    }

    /**
     * The filters of {@code req}'s query, as {@code GET /audit} reads them (also the console's audit search).
     *
     * @throws dev.warden.api.errors.InvalidInputException naming the parameter at fault
     */
    public static AuditQuery parse(ServerRequest req, boolean paged) {
        Optional<String> agentId = Params.query(req, "agentId", v -> Ids.require("agentId", v));
        Optional<String> userId = Params.query(req, "userId", v -> Ids.require("userId", v));
        Optional<Instant> since = Params.queryInstant(req, "since");
        Optional<Instant> until = Params.queryInstant(req, "until");
        List<String> actions = Params.query(
                        req,
                        "actions",
                        v -> Arrays.stream(v.split(","))
                                .map(String::strip)
                                .filter(s -> !s.isEmpty())
                                .toList())
                .orElse(List.of());
        Optional<AuditResult> result = Params.queryEnum(req, "result", AuditResult.class);
        int limit = paged
                ? Params.query(req, "limit", v -> bounded(v, 1, AuditQuery.MAX_LIMIT))
                        .orElse(AuditQuery.DEFAULT_LIMIT)
                : Integer.MAX_VALUE;
        int offset = paged
                ? Params.query(req, "offset", v -> bounded(v, 0, 1_000_000)).orElse(0)
                : 0;
        if (since.isPresent() && until.isPresent() && !since.get().isBefore(until.get())) {
            throw InvalidInputException.field("until", "must be after since");
        }
        return new AuditQuery(agentId, userId, since, until, actions, result, limit, offset);
    }

    private static int bounded(String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n < min || n > max) {
                throw new IllegalArgumentException("must be from " + min + " to " + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number from " + min + " to " + max);
        }
    }
}
