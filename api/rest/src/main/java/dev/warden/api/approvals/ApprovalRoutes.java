package dev.warden.api.approvals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /approvals} (docs/approvals.md): {@code GET /approvals?status=&limit=}, {@code GET /approvals/{id}?wait=30s}
 * (a long poll while it is pending), {@code POST /approvals/{id}/approve} and {@code /deny} with an optional
 * {@code {"note"}}.
 */
public final class ApprovalRoutes implements DeclaredService {
    /** The longest note. */
    static final int MAX_NOTE = 1000;

    private static final Pattern WAIT = Pattern.compile("(\\d{1,3})(s?)");
    private static final Set<String> DECIDE_FIELDS = Set.of("note");

    private final ApprovalService approvals;
    private final long maxBodyBytes;

    public ApprovalRoutes(ApprovalService approvals, long maxBodyBytes) {
        this.approvals = approvals;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.scope("approvals:read"), this::list)
                .get("/{id}", Access.scope("approvals:read"), this::get)
                .post("/{id}/approve", Access.scope("approvals:write"), (req, res) -> decide(req, res, true))
                .post("/{id}/deny", Access.scope("approvals:write"), (req, res) -> decide(req, res, false));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<Approval.Status> status = Params.queryEnum(req, "status", Approval.Status.class);
        int limit = Params.query(req, "limit", ApprovalRoutes::limit).orElse(50);
        Responses.json(
                res, Status.OK_200, ApprovalJson.renderAll(approvals.list(AuthFilter.principal(req), status, limit)));
    }

    private void get(ServerRequest req, ServerResponse res) {
        Duration wait = Params.query(req, "wait", ApprovalRoutes::waitFor).orElse(Duration.ZERO);
        Approval approval = approvals.get(AuthFilter.principal(req), Params.path(req, "id", s -> s), wait);
        Responses.json(res, Status.OK_200, ApprovalJson.render(approval));
    }

    private void decide(ServerRequest req, ServerResponse res, boolean approve) {
        Optional<String> note = Optional.empty();
        if (req.content().hasEntity()) {
            ObjectNode body = RequestReader.readObject(req, maxBodyBytes);
            JsonInput in = JsonInput.of(body, DECIDE_FIELDS);
            note = in.optionalString("note", MAX_NOTE);
            in.validate();
        }
        Approval decided = approvals.decide(AuthFilter.principal(req), Params.path(req, "id", s -> s), approve, note);
        Responses.json(res, Status.OK_200, ApprovalJson.render(decided));
    }

    private static int limit(String text) {
        if (!text.matches("\\d{1,3}")
                || Integer.parseInt(text) < 1
                || Integer.parseInt(text) > ApprovalService.MAX_LIST) {
            throw new IllegalArgumentException("must be a whole number from 1 to " + ApprovalService.MAX_LIST);
        }
        return Integer.parseInt(text);
    }

    /** {@code 30s} or {@code 30}: seconds, at most {@link ApprovalService#MAX_WAIT}. */
    private static Duration waitFor(String text) {
        Matcher m = WAIT.matcher(text);
        if (!m.matches() || Integer.parseInt(m.group(1)) > ApprovalService.MAX_WAIT.toSeconds()) {
            throw new IllegalArgumentException(
                    "must be seconds such as 30s, at most " + ApprovalService.MAX_WAIT.toSeconds() + "s");
        }
        return Duration.ofSeconds(Integer.parseInt(m.group(1)));
    }
}
