package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.approvals.Approval;
import dev.warden.api.approvals.ApprovalService;
import dev.warden.api.console.ConsoleRows.ApprovalRow;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The approvals page (docs/approvals.md): the pending requests the operator may see, newest first, each with the call
 * it is for and, for those the operator may decide, a note and Approve and Deny; then the latest decided ones. Every
 * read and decision goes through {@link ApprovalService}, and so through the one access policy.
 */
final class ApprovalPages implements DeclaredService {
    /** How many requests of each kind the page lists. */
    static final int SHOWN = 50;

    private final ApprovalService approvals;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final long maxBodyBytes;

    ApprovalPages(ApprovalService approvals, ConsoleSession session, ConsolePages pages, long maxBodyBytes) {
        this.approvals = approvals;
        this.session = session;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/approvals", Access.open(), this::list)
                .post("/approvals/{id}/{decision}", Access.open(), this::decide);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        List<Approval> pending = approvals.list(user.get().principal(), Optional.of(Approval.Status.PENDING), SHOWN);
        List<Approval> recent = approvals.list(user.get().principal(), Optional.empty(), SHOWN).stream()
                .filter(a -> a.status() != Approval.Status.PENDING)
                .toList();
        Map<String, Object> params = session.params(req, res, user.get(), "approvals");
        params.put("pending", pending.stream().map(ApprovalRow::of).toList());
        params.put("recent", recent.stream().map(ApprovalRow::of).toList());
        pages.send(res, Status.OK_200, "console/approvals.jte", params);
    }

    private void decide(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res, form);
        if (user.isEmpty()) {
            return;
        }
        String decision = Params.path(req, "decision", d -> {
            if (!d.equals("approve") && !d.equals("deny")) {
                throw new IllegalArgumentException("must be approve or deny");
            }
            return d;
        });
        Optional<String> note = Optional.ofNullable(form.get("note"))
                .map(String::strip)
                .filter(n -> !n.isEmpty())
                .map(n -> n.length() > 1000 ? n.substring(0, 1000) : n);
        approvals.decide(user.get().principal(), Params.path(req, "id", id -> id), decision.equals("approve"), note);
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/approvals");
    }
}
