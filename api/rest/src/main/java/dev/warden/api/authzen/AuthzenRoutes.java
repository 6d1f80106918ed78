package dev.warden.api.authzen;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.authorize.AuthorizationService.BatchAnswer;
import dev.warden.api.authzen.AuthzenRequests.Target;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.authorizer.domain.ResourcePattern;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The AuthZEN Authorization API 1.0 (docs/authzen.md), mounted at {@code /access/v1}: {@code POST /evaluation} and
 * {@code POST /evaluations}. Every evaluation is a decision as {@code POST /authorize} makes it: audited exactly
 * once, counted against budgets, seen on the stream; a batch publishes its entries together. A subject of type
 * {@code agent} is a Warden agent; a resource {@code {type, id}} is the resource {@code type:id}; {@code context}, the
 * subject's and the action's properties are the conditions' {@code context}, {@code context.subject} and
 * {@code context.action}, the resource's properties {@code resource.properties}. The decision's {@code context}
 * carries {@code reason}, {@code auditId} and {@code approvalId}; a batch's items carry them when
 * {@code options.warden_decision_context} is {@code full} (D173).
 */
public final class AuthzenRoutes implements DeclaredService {
    private final AuthorizationService decisions;
    private final AuthzenSubjects subjects;
    private final AuthzenSearch search;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public AuthzenRoutes(AuthorizationService decisions, AgentService agents, ClientIp clientIp, long maxBodyBytes) {
        this.decisions = decisions;
        this.subjects = new AuthzenSubjects(agents);
        this.search = new AuthzenSearch(decisions, agents, subjects);
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/evaluation", Access.scope("authorize:write"), this::evaluation)
                .post("/evaluations", Access.scope("authorize:write"), this::evaluations)
                .post(
                        "/search/subject",
                        Access.scope("authorize:write"),
                        (req, res) -> search(req, res, Target.SUBJECT))
                .post(
                        "/search/resource",
                        Access.scope("authorize:write"),
                        (req, res) -> search(req, res, Target.RESOURCE))
                .post("/search/action", Access.scope("authorize:write"), (req, res) -> search(req, res, Target.ACTION));
    }

    private void evaluation(ServerRequest req, ServerResponse res) {
        AuthzenRequests.Evaluation evaluation = AuthzenRequests.evaluation(body(req));
        List<BatchAnswer> answers = decide(
                AuthFilter.principal(req),
                List.of(new AuthzenRequests.Item(Optional.of(evaluation), Optional.empty())),
                clientIp.text(req),
                AuthorizationService.Semantic.EXECUTE_ALL);
        Responses.json(res, Status.OK_200, render(answers.getFirst(), true));
    }

    private void evaluations(ServerRequest req, ServerResponse res) {
        AuthzenRequests.Batch batch = AuthzenRequests.batch(body(req));
        AuthorizationService.Semantic semantic =
                AuthorizationService.Semantic.valueOf(batch.semantic().toUpperCase(Locale.ROOT));
        List<BatchAnswer> answers = decide(AuthFilter.principal(req), batch.items(), clientIp.text(req), semantic);
        if (batch.single()) {
            Responses.json(res, Status.OK_200, render(answers.getFirst(), true));
            return;
        }
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode out = body.putArray("evaluations");
        answers.forEach(a -> out.add(render(a, batch.fullContext())));
        Responses.json(res, Status.OK_200, body);
    }

    private void search(ServerRequest req, ServerResponse res, Target target) {
        AuthzenRequests.Search query = AuthzenRequests.search(body(req), target);
        AuthzenSearch.Page page = search.search(AuthFilter.principal(req), query, clientIp.text(req));
        ObjectNode body = Json.mapper().createObjectNode();
        body.putObject("page")
                .put("next_token", page.nextToken())
                .put("count", page.results().size())
                .put("total", page.total());
        ArrayNode results = body.putArray("results");
        page.results().forEach(r -> {
            ObjectNode item = results.addObject();
            r.forEach(item::put);
        });
        Responses.json(res, Status.OK_200, body);
    }

    /**
     * The request's JSON object. A body that is not {@code application/json} is a 400 here, not Warden's usual 415:
     * the AuthZEN certification scenario requires it of a PDP (D174).
     */
    private ObjectNode body(ServerRequest req) {
        try {
            return RequestReader.readObject(req, maxBodyBytes);
        } catch (WardenException e) {
            if (e.code() == ErrorCode.UNSUPPORTED_MEDIA_TYPE) {
                throw new InvalidInputException(ErrorCode.BAD_REQUEST, e.getMessage());
            }
            throw e;
        }
    }

    /**
     * Decides the items that map to Warden decisions, in order; one that does not (a field missing from a batch
     * item, a subject that is no agent the caller may ask about, a resource that is not a concrete resource) is a
     * denial with an error, and counts as a denial for the semantic.
     */
    private List<BatchAnswer> decide(
            Principal caller,
            List<AuthzenRequests.Item> items,
            String callerIp,
            AuthorizationService.Semantic semantic) {
        boolean denyFirst = semantic == AuthorizationService.Semantic.DENY_ON_FIRST_DENY;
        boolean permitFirst = semantic == AuthorizationService.Semantic.PERMIT_ON_FIRST_PERMIT;
        List<Optional<WardenException>> problems = new ArrayList<>(items.size());
        List<AuthorizationService.Request> run = new ArrayList<>();
        for (AuthzenRequests.Item item : items) {
            Optional<WardenException> problem = item.problem()
                    .<WardenException>map(p -> new InvalidInputException(ErrorCode.VALIDATION_INVALID, p));
            AuthzenRequests.Evaluation e = item.evaluation().orElse(null);
            if (problem.isEmpty()) {
                problem = resourceProblem(e);
            }
            if (problem.isEmpty()) {
                switch (subjects.resolve(caller, e.subject().type(), e.subject().id())) {
                    case AuthzenSubjects.Resolved.Found found -> run.add(e.toRequest(found.id(), callerIp));
                    case AuthzenSubjects.Resolved.Missing missing -> problem = Optional.of(missing.why());
                }
            }
            problems.add(problem);
            if (problem.isPresent() && denyFirst) {
                break;
            }
        }
        List<BatchAnswer> decided = run.isEmpty() ? List.of() : decisions.decideAll(caller, run, semantic);
        List<BatchAnswer> answers = new ArrayList<>(items.size());
        int next = 0;
        for (Optional<WardenException> problem : problems) {
            BatchAnswer answer;
            if (problem.isPresent()) {
                answer = new BatchAnswer.Refused(problem.get());
            } else if (next < decided.size()) {
                answer = decided.get(next++);
            } else {
                break;
            }
            answers.add(answer);
            boolean allowed =
                    answer instanceof BatchAnswer.Made made && made.decision().allowed();
            if ((denyFirst && !allowed) || (permitFirst && allowed)) {
                break;
            }
        }
        return answers;
    }

    private static Optional<WardenException> resourceProblem(AuthzenRequests.Evaluation e) {
        if (e.action().id().length() > 128 || e.action().id().isBlank()) {
            return Optional.of(InvalidInputException.field("action.name", "must be 1 to 128 characters"));
        }
        return ResourcePattern.resourceProblem(e.resourceName())
                .map(p -> InvalidInputException.field("resource", "(type:id) " + p));
    }

    /**
     * The decision object of {@code answer}. With {@code full}, its {@code context} carries the reason, the audit id
     * and the approval id; without, only what the enforcement point must act on (an approval to wait for, an error),
     * so that a batch's items are bare {@code {"decision": …}} objects where there is nothing more (D173).
     */
    private static ObjectNode render(BatchAnswer answer, boolean full) {
        ObjectNode node = Json.mapper().createObjectNode();
        switch (answer) {
            case BatchAnswer.Made made
            when !full -> {
                AuthorizationService.Decision d = made.decision();
                node.put("decision", d.allowed());
                d.approvalId()
                        .ifPresent(id -> node.putObject("context")
                                .put("reason", d.reason().map(Enum::name).orElse(""))
                                .put("approvalId", id));
            }
            case BatchAnswer.Made made -> {
                AuthorizationService.Decision d = made.decision();
                node.put("decision", d.allowed());
                ObjectNode context = node.putObject("context");
                d.reason().ifPresent(r -> context.put("reason", r.name()));
                d.retryAfterSeconds().ifPresent(s -> context.put("retryAfter", s));
                d.approvalId().ifPresent(id -> context.put("approvalId", id));
                context.put("auditId", d.auditId());
            }
            case BatchAnswer.Refused refused -> {
                node.put("decision", false);
                ObjectNode error = node.putObject("context").putObject("error");
                error.put("status", refused.error().code().status());
                error.put(
                        "message",
                        refused.error().detail().orElse(refused.error().code().title()));
            }
        }
        return node;
    }
}
