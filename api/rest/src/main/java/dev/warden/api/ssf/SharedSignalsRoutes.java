package dev.warden.api.ssf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.TooManyRequestsException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.authorizer.domain.Ids;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.outbound.TargetGuard;
import dev.warden.sinks.ssf.SecurityEventTokens;
import dev.warden.sinks.ssf.SetSigner;
import dev.warden.sinks.ssf.SignalMapper;
import dev.warden.sinks.ssf.SignalStream;
import dev.warden.sinks.ssf.SignalStreams;
import dev.warden.sinks.ssf.SignalTypes;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The Shared Signals transmitter's management API (SSF 1.0 section 8, docs/shared-signals.md) under {@code /ssf}:
 * streams (create, read, update, replace, delete), their status, subjects removed and added back, verification,
 * and the poll endpoint of RFC 8936. A receiver authenticates with an OAuth access token (client credentials of an
 * agent holding {@code ssf:read} and {@code ssf:write}), or a person or the administrator with their token; who may
 * see which stream and whose signals it carries is {@link AccessPolicy#signalsOwner}. A stream another caller
 * manages is a 404, as one that does not exist. Changes are audited ({@code admin.ssf.stream.*}).
 */
public final class SharedSignalsRoutes implements DeclaredService {
    /** Where the management API is mounted. */
    public static final String BASE = "/ssf";
    /** The most streams one caller manages. */
    static final int MAX_STREAMS = 20;
    /** The least time between two verification requests of a stream. */
    static final Duration MIN_VERIFICATION_INTERVAL = Duration.ofSeconds(15);

    static final int MAX_EVENTS_REQUESTED = 32;
    static final int MAX_POLL = 1000;
    static final int DEFAULT_POLL = 100;
    private static final Duration POLL_STEP = Duration.ofMillis(250);

    private static final Set<String> TRANSMITTER_SUPPLIED = Set.of(
            "stream_id",
            "iss",
            "aud",
            "events_supported",
            "events_delivered",
            "min_verification_interval",
            "inactivity_timeout");
    private static final Set<String> RECEIVER_SUPPLIED = Set.of("delivery", "events_requested", "description");

    private final SignalStreams streams;
    private final Issuer issuer;
    private final SetSigner signer;
    private final TargetGuard guard;
    private final Consumer<AuditEntry> audit;
    private final InstantSource clock;
    private final Duration longPoll;
    private final long maxBodyBytes;

    /**
     * @param guard    the check a push endpoint's address must pass (as a webhook's)
     * @param longPoll the longest a poll without {@code returnImmediately} waits for a token
     */
    public SharedSignalsRoutes(
            SignalStreams streams,
            Issuer issuer,
            SetSigner signer,
            TargetGuard guard,
            Consumer<AuditEntry> audit,
            InstantSource clock,
            Duration longPoll,
            long maxBodyBytes) {
        this.streams = streams;
        this.issuer = issuer;
        this.signer = signer;
        this.guard = guard;
        this.audit = audit;
        this.clock = clock;
        this.longPoll = longPoll;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        Access read = Access.scope("ssf:read");
        Access write = Access.scope("ssf:write");
        rules.post("/streams", write, this::create)
                .get("/streams", read, this::read)
                .patch("/streams", write, (req, res) -> update(req, res, false))
                .put("/streams", write, (req, res) -> update(req, res, true))
                .delete("/streams", write, this::delete)
                .get("/status", read, this::status)
                .post("/status", write, this::setStatus)
                .post("/subjects/add", write, (req, res) -> subject(req, res, true))
                .post("/subjects/remove", write, (req, res) -> subject(req, res, false))
                .post("/verify", write, this::verify)
                .post("/poll/{streamId}", read, this::poll);
    }

    private void create(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), RECEIVER_SUPPLIED);
        String id = Ids.mint("ssf");
        Settings settings = settings(in, Optional.empty());
        in.validate();
        if (!owner.managesAll() && streams.countManagedBy(owner.manager()) >= MAX_STREAMS) {
            throw new ConflictException(
                    ErrorCode.STREAM_LIMIT_REACHED, "a caller manages at most " + MAX_STREAMS + " streams");
        }
        Instant now = clock.instant();
        SignalStream stream = new SignalStream(
                id,
                owner.manager(),
                owner.ownerUser(),
                owner.audience(),
                settings.method(),
                settings.endpoint(),
                settings.authorizationHeader(),
                settings.eventsRequested(),
                settings.description(),
                SignalStream.Status.ENABLED,
                Optional.empty(),
                now,
                now,
                Optional.empty());
        streams.create(stream);
        record(
                req,
                "ssf.stream.create",
                stream,
                Map.of("delivery", stream.method().urn()),
                now);
        Responses.json(res, Status.CREATED_201, render(stream));
    }

    private void read(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        Optional<String> id = Params.query(req, "stream_id", SharedSignalsRoutes::streamId);
        if (id.isPresent()) {
            Responses.json(res, Status.OK_200, render(managed(owner, id.get())));
            return;
        }
        ArrayNode all = Json.mapper().createArrayNode();
        streams.managedBy(owner.managesAll() ? Optional.empty() : Optional.of(owner.manager()))
                .forEach(s -> all.add(render(s)));
        Responses.json(res, Status.OK_200, all);
    }

    /** PATCH changes the receiver-supplied fields present; PUT replaces them all. */
    private void update(ServerRequest req, ServerResponse res, boolean replace) {
        AccessPolicy.SignalsOwner owner = owner(req);
        Set<String> allowed = new LinkedHashSet<>(RECEIVER_SUPPLIED);
        allowed.addAll(TRANSMITTER_SUPPLIED);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), allowed);
        Optional<String> id = in.requiredValue("stream_id", 64, SharedSignalsRoutes::streamId);
        in.validate();
        SignalStream current = managed(owner, id.get());
        Settings settings;
        if (replace) {
            settings = settings(in, Optional.of(current.method()));
        } else {
            Settings mine = new Settings(
                    current.method(),
                    current.endpoint(),
                    current.authorizationHeader(),
                    current.eventsRequested(),
                    current.description());
            settings = patched(in, mine);
        }
        in.validate();
        Instant now = clock.instant();
        SignalStream next = current.reconfigured(
                settings.endpoint(),
                settings.authorizationHeader(),
                settings.eventsRequested(),
                settings.description(),
                now);
        streams.update(next);
        record(req, "ssf.stream.update", next, Map.of(), now);
        Responses.json(res, Status.OK_200, render(next));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        String id = Params.query(req, "stream_id", SharedSignalsRoutes::streamId)
                .orElseThrow(() -> InvalidInputException.field("stream_id", "is required"));
        SignalStream stream = managed(owner, id);
        streams.delete(id);
        record(req, "ssf.stream.delete", stream, Map.of(), clock.instant());
        Responses.noContent(res);
    }

    private void status(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        String id = Params.query(req, "stream_id", SharedSignalsRoutes::streamId)
                .orElseThrow(() -> InvalidInputException.field("stream_id", "is required"));
        Responses.json(res, Status.OK_200, renderStatus(managed(owner, id)));
    }

    private void setStatus(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        JsonInput in =
                JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("stream_id", "status", "reason"));
        Optional<String> id = in.requiredValue("stream_id", 64, SharedSignalsRoutes::streamId);
        Optional<SignalStream.Status> status = in.requiredValue(
                "status",
                16,
                text -> SignalStream.Status.of(text)
                        .orElseThrow(() -> new IllegalArgumentException("must be one of: enabled, paused, disabled")));
        Optional<String> reason = in.optionalString("reason", 256);
        in.validate();
        SignalStream stream = managed(owner, id.get());
        Instant now = clock.instant();
        streams.status(stream.id(), status.get(), reason, now);
        record(req, "ssf.stream.status", stream, Map.of("status", status.get().wireName()), now);
        Responses.json(
                res, Status.OK_200, renderStatus(streams.find(stream.id()).orElseThrow(SharedSignalsRoutes::notFound)));
    }

    private void subject(ServerRequest req, ServerResponse res, boolean add) {
        AccessPolicy.SignalsOwner owner = owner(req);
        JsonInput in = JsonInput.of(
                RequestReader.readObject(req, maxBodyBytes),
                add ? Set.of("stream_id", "subject", "verified") : Set.of("stream_id", "subject"));
        Optional<String> id = in.requiredValue("stream_id", 64, SharedSignalsRoutes::streamId);
        Optional<Map<String, Object>> subject = in.optionalObject("subject", 1024);
        if (!in.has("subject") || in.isNull("subject")) {
            in.error("subject", "is required");
        }
        Optional<String> key = subject.flatMap(s -> SignalMapper.subjectKey(s, issuer.value()));
        if (subject.isPresent() && key.isEmpty()) {
            in.error(
                    "subject",
                    "must be {\"format\": \"opaque\", \"id\"} or {\"format\": \"iss_sub\", \"iss\": \"" + issuer.value()
                            + "\", \"sub\"}");
        }
        in.raw("verified").filter(v -> !v.isBoolean()).ifPresent(v -> in.error("verified", "must be a boolean"));
        in.validate();
        SignalStream stream = managed(owner, id.get());
        if (key.get().length() > 128) {
            throw InvalidInputException.field("subject", "names an identifier longer than 128 characters");
        }
        if (add) {
            streams.include(stream.id(), key.get());
            Responses.json(res, Status.OK_200, Json.mapper().createObjectNode());
        } else {
            streams.exclude(stream.id(), key.get());
            Responses.noContent(res);
        }
    }

    /** SSF 1.0 section 8.1.4: a verification event through the stream's own delivery, with the receiver's state. */
    private void verify(ServerRequest req, ServerResponse res) {
        AccessPolicy.SignalsOwner owner = owner(req);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), Set.of("stream_id", "state"));
        Optional<String> id = in.requiredValue("stream_id", 64, SharedSignalsRoutes::streamId);
        Optional<String> state = in.optionalString("state", 256);
        in.validate();
        SignalStream stream = managed(owner, id.get());
        if (stream.status() == SignalStream.Status.DISABLED) {
            throw new ConflictException(ErrorCode.CONFLICT, "the stream is disabled: enable it first");
        }
        Instant now = clock.instant();
        if (!streams.verifying(stream.id(), now, now.minus(MIN_VERIFICATION_INTERVAL))) {
            throw new TooManyRequestsException(
                    ErrorCode.VERIFICATION_TOO_SOON,
                    "a stream is verified at most once every " + MIN_VERIFICATION_INTERVAL.toSeconds() + " s",
                    MIN_VERIFICATION_INTERVAL);
        }
        Map<String, Object> members = new LinkedHashMap<>();
        state.ifPresent(s -> members.put("state", s));
        String jti = UUID.randomUUID().toString();
        String token = signer.sign(SecurityEventTokens.claims(
                issuer.value(),
                stream.audience(),
                jti,
                now,
                Map.of("format", "opaque", "id", stream.id()),
                SignalTypes.VERIFICATION,
                members));
        streams.enqueue(stream.id(), jti, token, now);
        Responses.noContent(res);
    }

    /**
     * RFC 8936: acknowledge ({@code ack}) and report ({@code setErrs}) what the receiver took, then answer the oldest
     * pending tokens ({@code maxEvents}, 0 for none): at once with {@code returnImmediately}, else as soon as one is
     * there, or empty after the long-poll wait. A paused or disabled stream answers none.
     */
    private void poll(ServerRequest req, ServerResponse res) throws InterruptedException {
        AccessPolicy.SignalsOwner owner = owner(req);
        String id = Params.path(req, "streamId", SharedSignalsRoutes::streamId);
        ObjectNode body = req.content().hasEntity()
                ? RequestReader.readObject(req, maxBodyBytes)
                : Json.mapper().createObjectNode();
        JsonInput in = JsonInput.of(body, Set.of("maxEvents", "returnImmediately", "ack", "setErrs"));
        int max = (int) in.optionalLong("maxEvents", 0, MAX_POLL).orElse(DEFAULT_POLL);
        boolean immediately =
                in.raw("returnImmediately").map(JsonNode::asBoolean).orElse(false);
        in.raw("returnImmediately")
                .filter(v -> !v.isBoolean())
                .ifPresent(v -> in.error("returnImmediately", "must be a boolean"));
        Set<String> ack = jtis(in, "ack");
        Map<String, String> errors = setErrs(in);
        in.validate();
        SignalStream stream = managed(owner, id);
        if (stream.method() != SignalStream.Method.POLL) {
            throw new ConflictException(ErrorCode.CONFLICT, "the stream is delivered by push, not polled");
        }
        // What the receiver took and what it reported as errors both leave the queue, in one statement.
        Set<String> taken = new LinkedHashSet<>(ack);
        taken.addAll(errors.keySet());
        streams.acknowledge(stream.id(), taken);
        SignalStreams.Page page = new SignalStreams.Page(List.of(), false);
        if (max > 0 && stream.status() == SignalStream.Status.ENABLED) {
            long deadline = System.nanoTime() + longPoll.toNanos();
            page = streams.pending(stream.id(), max);
            while (page.tokens().isEmpty() && !immediately && System.nanoTime() < deadline) {
                Thread.sleep(POLL_STEP);
                page = streams.pending(stream.id(), max);
            }
        }
        ObjectNode answer = Json.mapper().createObjectNode();
        ObjectNode sets = answer.putObject("sets");
        page.tokens().forEach(t -> sets.put(t.jti(), t.token()));
        answer.put("moreAvailable", page.moreAvailable());
        Responses.json(res, Status.OK_200, answer);
    }

    private static Set<String> jtis(JsonInput in, String field) {
        Optional<JsonNode> raw = in.raw(field);
        if (raw.isEmpty()) {
            return Set.of();
        }
        if (!raw.get().isArray() || raw.get().size() > MAX_POLL) {
            in.error(field, "must be an array of at most " + MAX_POLL + " jti strings");
            return Set.of();
        }
        Set<String> jtis = new LinkedHashSet<>();
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode item = raw.get().get(i);
            if (!item.isTextual()
                    || item.textValue().isEmpty()
                    || item.textValue().length() > 128) {
                in.error(field + "[" + i + "]", "must be a jti (a string of 1 to 128 characters)");
            } else {
                jtis.add(item.textValue());
            }
        }
        return jtis;
    }

    /** RFC 8936 section 2.4.2: {@code {jti: {err, description}}}. */
    private static Map<String, String> setErrs(JsonInput in) {
        Optional<JsonNode> raw = in.raw("setErrs");
        if (raw.isEmpty()) {
            return Map.of();
        }
        if (!raw.get().isObject() || raw.get().size() > MAX_POLL) {
            in.error("setErrs", "must be an object of at most " + MAX_POLL + " jti: {err, description} members");
            return Map.of();
        }
        Map<String, String> errors = new LinkedHashMap<>();
        raw.get().properties().forEach(e -> {
            JsonNode err = e.getValue().path("err");
            if (e.getKey().isEmpty() || e.getKey().length() > 128 || !err.isTextual()) {
                in.error("setErrs." + e.getKey(), "must be {\"err\": string, \"description\"?: string} under a jti");
            } else {
                errors.put(e.getKey(), err.textValue());
            }
        });
        return errors;
    }

    /** What a receiver configures of a stream. */
    private record Settings(
            SignalStream.Method method,
            Optional<URI> endpoint,
            Optional<String> authorizationHeader,
            List<String> eventsRequested,
            Optional<String> description) {}

    /** The receiver-supplied fields, absent ones at their defaults; {@code fixed}: the method may not change. */
    private Settings settings(JsonInput in, Optional<SignalStream.Method> fixed) {
        Delivery delivery = delivery(in, fixed);
        List<String> events = eventsRequested(in).orElse(SignalTypes.SUPPORTED);
        Optional<String> description = in.optionalString("description", 256);
        return new Settings(
                delivery.method(), delivery.endpoint(), delivery.authorizationHeader(), events, description);
    }

    private Settings patched(JsonInput in, Settings current) {
        Delivery delivery = in.has("delivery")
                ? delivery(in, Optional.of(current.method()))
                : new Delivery(current.method(), current.endpoint(), current.authorizationHeader());
        List<String> events =
                in.has("events_requested") ? eventsRequested(in).orElse(List.of()) : current.eventsRequested();
        Optional<String> description =
                in.has("description") ? in.optionalString("description", 256) : current.description();
        return new Settings(
                delivery.method(), delivery.endpoint(), delivery.authorizationHeader(), events, description);
    }

    private record Delivery(SignalStream.Method method, Optional<URI> endpoint, Optional<String> authorizationHeader) {}

    /** {@code delivery}: a method (poll when absent), a push endpoint, and its optional {@code Authorization}. */
    private Delivery delivery(JsonInput in, Optional<SignalStream.Method> fixed) {
        Optional<JsonNode> raw = in.raw("delivery");
        if (raw.isEmpty()) {
            if (fixed.orElse(SignalStream.Method.POLL) == SignalStream.Method.PUSH) {
                // A push stream keeps an endpoint: absent (PUT) or null (PATCH) would leave it none to push to.
                in.error("delivery", "is required for a push stream, with its endpoint_url");
            }
            return new Delivery(fixed.orElse(SignalStream.Method.POLL), Optional.empty(), Optional.empty());
        }
        if (!(raw.get() instanceof ObjectNode node)) {
            in.error("delivery", "must be an object");
            return new Delivery(SignalStream.Method.POLL, Optional.empty(), Optional.empty());
        }
        JsonInput d = in.nested(node, "delivery", Set.of("method", "endpoint_url", "authorization_header"));
        SignalStream.Method method = d.requiredValue(
                        "method",
                        64,
                        urn -> SignalStream.Method.ofUrn(urn)
                                .orElseThrow(() -> new IllegalArgumentException(
                                        "must be " + SignalTypes.PUSH + " (push) or " + SignalTypes.POLL + " (poll)")))
                .orElse(SignalStream.Method.POLL);
        if (fixed.isPresent() && fixed.get() != method && d.isValid()) {
            d.error("method", "cannot change: create a new stream for another delivery method");
        }
        if (method == SignalStream.Method.POLL) {
            if (d.has("authorization_header")) {
                d.error("authorization_header", "is for push delivery only");
            }
            // A receiver may echo the poll URL it was given; any other is not its to choose.
            return new Delivery(method, Optional.empty(), Optional.empty());
        }
        Optional<URI> endpoint = d.requiredValue("endpoint_url", 2048, TargetGuard::parseUrl);
        endpoint.ifPresent(url -> {
            TargetGuard.Verdict verdict = guard.check(url);
            if (!verdict.allowed()) {
                d.error("endpoint_url", verdict.reason());
            }
        });
        Optional<String> authorization = d.optionalString("authorization_header", 4096);
        authorization
                .filter(h -> h.chars().anyMatch(c -> c < 0x20 || c > 0x7e))
                .ifPresent(h -> d.error("authorization_header", "must be printable ASCII"));
        return new Delivery(method, endpoint, authorization);
    }

    /** {@code events_requested}: event type URIs; unknown ones are kept and simply never delivered. */
    private static Optional<List<String>> eventsRequested(JsonInput in) {
        Optional<JsonNode> raw = in.raw("events_requested");
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        if (!raw.get().isArray() || raw.get().size() > MAX_EVENTS_REQUESTED) {
            in.error("events_requested", "must be an array of at most " + MAX_EVENTS_REQUESTED + " event type URIs");
            return Optional.of(List.of());
        }
        Set<String> events = new LinkedHashSet<>();
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode item = raw.get().get(i);
            if (!item.isTextual()
                    || item.textValue().isBlank()
                    || item.textValue().length() > 256) {
                in.error("events_requested[" + i + "]", "must be an event type URI of at most 256 characters");
            } else {
                events.add(item.textValue());
            }
        }
        return Optional.of(new ArrayList<>(events));
    }

    /** A stream id as Warden mints them. */
    private static String streamId(String text) {
        if (text.length() > 64 || !text.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("is not a stream id");
        }
        return text;
    }

    private static AccessPolicy.SignalsOwner owner(ServerRequest req) {
        return AccessPolicy.signalsOwner(AuthFilter.principal(req));
    }

    /** The stream, if the caller manages it; a 404 otherwise, whether it exists or not. */
    private SignalStream managed(AccessPolicy.SignalsOwner owner, String id) {
        return streams.find(id).filter(s -> owner.manages(s.manager())).orElseThrow(SharedSignalsRoutes::notFound);
    }

    private static NotFoundException notFound() {
        return new NotFoundException(ErrorCode.STREAM_NOT_FOUND, "no such stream among those you manage");
    }

    /** SSF 1.0 section 8.1.1: the stream configuration; the authorization header is never shown. */
    private ObjectNode render(SignalStream stream) {
        ObjectNode node = Json.mapper().createObjectNode();
        node.put("stream_id", stream.id());
        node.put("iss", issuer.value());
        node.put("aud", stream.audience());
        ObjectNode delivery = node.putObject("delivery");
        delivery.put("method", stream.method().urn());
        delivery.put(
                "endpoint_url",
                stream.method() == SignalStream.Method.POLL
                        ? issuer.url(BASE + "/poll/" + stream.id())
                        : stream.endpoint().map(URI::toString).orElse(null));
        ArrayNode supported = node.putArray("events_supported");
        SignalTypes.SUPPORTED.forEach(supported::add);
        ArrayNode requested = node.putArray("events_requested");
        stream.eventsRequested().forEach(requested::add);
        ArrayNode delivered = node.putArray("events_delivered");
        stream.eventsDelivered().forEach(delivered::add);
        node.put("min_verification_interval", MIN_VERIFICATION_INTERVAL.toSeconds());
        stream.description().ifPresent(d -> node.put("description", d));
        return node;
    }

    private static ObjectNode renderStatus(SignalStream stream) {
        ObjectNode node = Json.mapper().createObjectNode();
        node.put("stream_id", stream.id());
        node.put("status", stream.status().wireName());
        stream.statusReason().ifPresent(r -> node.put("reason", r));
        return node;
    }

    private void record(ServerRequest req, String action, SignalStream stream, Map<String, Object> extra, Instant at) {
        Map<String, Object> parameters = new LinkedHashMap<>(extra);
        parameters.put("stream", stream.id());
        parameters.put("audience", stream.audience());
        audit.accept(AuditEntry.administrative(
                Ids.mint("aud"),
                action,
                "",
                stream.ownerUser(),
                AuthFilter.principal(req).subjectId(),
                "ssf-stream:" + stream.id(),
                parameters,
                at));
    }
}
