package dev.warden.api.ssf;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.pipeline.contract.Json;
import dev.warden.sinks.ssf.SignalTypes;
import io.helidon.http.Status;

/**
 * {@code GET /.well-known/ssf-configuration} (public): the transmitter metadata of OpenID Shared Signals Framework
 * 1.0 section 7.1: the issuer of the tokens, the JWKS that verifies them, both delivery methods, the management
 * endpoints, OAuth as the way to authorize them, and {@code default_subjects: ALL}.
 */
public final class SsfConfiguration implements DeclaredService {
    private final Issuer issuer;

    public SsfConfiguration(Issuer issuer) {
        this.issuer = issuer;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), (req, res) -> {
            ObjectNode body = Json.mapper().createObjectNode();
            body.put("spec_version", "1_0");
            body.put("issuer", issuer.value());
            body.put("jwks_uri", issuer.url("/oauth/jwks"));
            ArrayNode methods = body.putArray("delivery_methods_supported");
            methods.add(SignalTypes.PUSH).add(SignalTypes.POLL);
            body.put("configuration_endpoint", issuer.url(SharedSignalsRoutes.BASE + "/streams"));
            body.put("status_endpoint", issuer.url(SharedSignalsRoutes.BASE + "/status"));
            body.put("add_subject_endpoint", issuer.url(SharedSignalsRoutes.BASE + "/subjects/add"));
            body.put("remove_subject_endpoint", issuer.url(SharedSignalsRoutes.BASE + "/subjects/remove"));
            body.put("verification_endpoint", issuer.url(SharedSignalsRoutes.BASE + "/verify"));
            body.putArray("authorization_schemes").addObject().put("spec_urn", "urn:ietf:rfc:6749");
            body.put("default_subjects", "ALL");
            res.header("Cache-Control", "public, max-age=3600");
            Responses.json(res, Status.OK_200, body);
        });
    }
}
