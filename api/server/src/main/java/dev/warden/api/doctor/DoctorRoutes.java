package dev.warden.api.doctor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET /admin/v1/doctor} (also at {@code /auth/admin/doctor}, deprecated): the security doctor's report, for the bootstrap administrator only:
 * {@code {"generatedAt", "findings": [{"id", "severity", "title", "detail", "fix"}], "counts": {"critical",
 * "warning", "info"}}}, findings most severe first (docs/doctor.md).
 */
public final class DoctorRoutes implements DeclaredService {
    private final Doctor doctor;

    /** The route serving the reports of {@code doctor}. */
    public DoctorRoutes(Doctor doctor) {
        this.doctor = doctor;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.administrator("the security doctor"), this::report);
    }

    private void report(ServerRequest req, ServerResponse res) {
        Responses.json(res, Status.OK_200, json(doctor.examine()));
    }

    /** The wire form of {@code report}. */
    static ObjectNode json(Report report) {
        ObjectNode body = Json.mapper().createObjectNode().put("generatedAt", Json.timestamp(report.generatedAt()));
        ArrayNode findings = body.putArray("findings");
        for (Finding f : report.findings()) {
            findings.addObject()
                    .put("id", f.id().wireName())
                    .put("severity", f.severity().wireName())
                    .put("title", f.title())
                    .put("detail", f.detail())
                    .put("fix", f.fix());
        }
        ObjectNode counts = body.putObject("counts");
        report.counts().forEach((severity, n) -> counts.put(severity.wireName(), n));
        return body;
    }
}
