package dev.warden.api.authzen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import java.util.function.Function;

/**
 * {@code GET /.well-known/authzen-configuration} (public): the Policy Decision Point metadata of AuthZEN 1.0, with
 * Warden's public base URL as {@code policy_decision_point}, and the two evaluation and three search endpoints under
 * it.
 */
public final class AuthzenConfiguration implements DeclaredService {
    /** Where the evaluation endpoints are mounted. */
    public static final String BASE_PATH = "/access/v1";

    private final Function<String, String> publicUrl;

    /** @param publicUrl the public URL of a path of this server (the issuer's base URL and the path) */
    public AuthzenConfiguration(Function<String, String> publicUrl) {
        this.publicUrl = publicUrl;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), (req, res) -> {
            ObjectNode body = Json.mapper().createObjectNode();
            String base = publicUrl.apply("");
            body.put("policy_decision_point", base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
            body.put("access_evaluation_endpoint", publicUrl.apply(BASE_PATH + "/evaluation"));
            body.put("access_evaluations_endpoint", publicUrl.apply(BASE_PATH + "/evaluations"));
            body.put("search_subject_endpoint", publicUrl.apply(BASE_PATH + "/search/subject"));
            body.put("search_resource_endpoint", publicUrl.apply(BASE_PATH + "/search/resource"));
            body.put("search_action_endpoint", publicUrl.apply(BASE_PATH + "/search/action"));
            res.header("Cache-Control", "public, max-age=3600");
            Responses.json(res, Status.OK_200, body);
        });
    }
}
