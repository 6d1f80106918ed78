package dev.warden.api.console;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.WardenException;
import dev.warden.api.http.ErrorMapper;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The console's pages, rendered from the precompiled templates in {@code src/main/jte/console}, with the headers
 * every one carries: a strict Content-Security-Policy (Warden's own scripts, styles and connections only; no
 * inline script or style, no {@code eval}), never framed, never cached, no referrer. Also the console's error
 * surface: an HTML page, never problem+json.
 */
public final class ConsolePages implements ErrorMapper {
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);

    /** Sends template {@code name} (e.g. {@code console/agents.jte}) with {@code params}. */
    void send(ServerResponse res, Status status, String name, Map<String, Object> params) {
        StringOutput out = new StringOutput();
        templates.render(name, params, out);
        secureHeaders(res);
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
        res.send(out.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Redirects the browser with the page headers. */
    static void redirect(ServerResponse res, Status status, String location) {
        secureHeaders(res);
        res.status(status);
        res.header(HeaderNames.LOCATION, location);
        res.send();
    }

    static void secureHeaders(ServerResponse res) {
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header(HeaderNames.create("Content-Security-Policy"), CSP);
        res.header(HeaderNames.create("X-Frame-Options"), "DENY");
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
    }

    @Override
    public void send(ServerRequest req, ServerResponse res, WardenException e) {
        if (res.isSent()) {
            return;
        }
        int status = e.code() == ErrorCode.INTERNAL ? 500 : e.code().status();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("title", e.code().title());
        params.put("message", e.describe());
        send(res, Status.create(status), "console/error.jte", params);
    }
}
