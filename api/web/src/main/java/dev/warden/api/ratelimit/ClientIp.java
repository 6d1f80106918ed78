package dev.warden.api.ratelimit;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client address of a request, as rate limiting and audit see it (SPEC Authentication 6).
 *
 * <p>It is the socket peer, unless the peer is one of the {@code trustedProxies}: then the forwarding
 * header is read right to left (nearest hop first), skipping hops that are themselves trusted proxies, and
 * the first untrusted hop is the client. {@code X-Forwarded-For} is read when present, else the {@code for=}
 * parameters of {@code Forwarded} (RFC 7239 section 5.2). A hop that is not an IP literal ({@code unknown},
 * an obfuscated name) stops the walk at the proxy that reported it. With no trusted proxies (the default)
 * forwarding headers are never read, so a client cannot choose its own rate-limit key.
 *
 * <p>Look-ups that find forwarding headers while no proxy is trusted are counted
 * ({@link #ignoredForwardingHeaders()}): they suggest a proxy that should be listed, since every client behind
 * it then shares the proxy's address. Thread-safe; the proxy list is immutable.
 */
public final class ClientIp {
    private static final String UNKNOWN = "unknown";

    private final List<Cidr> trustedProxies;
    private final LongAdder ignoredForwardingHeaders = new LongAdder();

    public ClientIp(List<Cidr> trustedProxies) {
        this.trustedProxies = List.copyOf(trustedProxies);
    }

    /** A resolver that trusts no proxy: the socket peer is always the client. */
    public static ClientIp untrusting() {
        return new ClientIp(List.of());
    }

    /** The trusted proxy prefixes. */
    public List<Cidr> trustedProxies() {
        return trustedProxies;
    }

    /** The client address of {@code req}, empty only when the transport has no IP peer. */
    public Optional<InetAddress> resolve(ServerRequest req) {
        List<String> xForwardedFor = req.headers().all(HeaderNames.X_FORWARDED_FOR, List::of);
        List<String> forwarded = req.headers().all(HeaderNames.FORWARDED, List::of);
        if (trustedProxies.isEmpty() && !(xForwardedFor.isEmpty() && forwarded.isEmpty())) {
            ignoredForwardingHeaders.increment();
        }
        return peer(req).map(peer -> resolve(peer, xForwardedFor, forwarded));
    }

    /**
     * How many look-ups of a client address since start found {@code X-Forwarded-For} or {@code Forwarded}
     * and ignored it because no proxy is trusted. A request is looked up by each component that needs its
     * client (the rate limiter, the audit of a sign-in), so one request may count more than once.
     */
    public long ignoredForwardingHeaders() {
        return ignoredForwardingHeaders.sum();
    }

    /** The client address as text ({@code 192.0.2.7}, {@code 2001:db8::1}), {@code unknown} without an IP peer. */
    public String text(ServerRequest req) {
        return resolve(req).map(InetAddress::getHostAddress).orElse(UNKNOWN);
    }

    /**
     * The rate-limit key of the request's client: the address, except that IPv6 clients are keyed by their
     * /64 network (one subscriber usually holds a whole /64 and could otherwise rotate addresses freely).
     */
    public String key(ServerRequest req) {
        return resolve(req).map(ClientIp::keyOf).orElse(UNKNOWN);
    }

    /**
     * True when the client reached Warden over TLS: the connection itself is TLS, or a trusted proxy says
     * so with {@code X-Forwarded-Proto: https} or {@code Forwarded: proto=https}.
     */
    public boolean isHttps(ServerRequest req) {
        if (req.isSecure()) {
            return true;
        }
        if (peer(req).filter(this::trusted).isEmpty()) {
            return false;
        }
        boolean forwardedProto = req.headers()
                .first(HeaderNames.X_FORWARDED_PROTO)
                .map(p -> p.strip().equalsIgnoreCase("https"))
                .orElse(false);
        return forwardedProto
                || forwardedParams(req.headers().all(HeaderNames.FORWARDED, List::of), "proto").stream()
                        .reduce((first, second) -> second)
                        .map(p -> p.equalsIgnoreCase("https"))
                        .orElse(false);
    }

    /** The pure resolution rule, for a peer and the raw header lines. */
    InetAddress resolve(InetAddress peer, List<String> xForwardedFor, List<String> forwarded) {
        if (!trusted(peer)) {
            return peer;
        }
        List<String> hops = !xForwardedFor.isEmpty() ? splitList(xForwardedFor) : forwardedParams(forwarded, "for");
        InetAddress current = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            Optional<InetAddress> hop = IpLiterals.parse(stripPort(hops.get(i)));
            if (hop.isEmpty()) {
                return current;
            }
            if (!trusted(hop.get())) {
                return hop.get();
            }
            current = hop.get();
        }
        return current;
    }

    /** The counter key of a client address (also what the rate-limiter benchmark keys its requests by). */
    public static String keyOf(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 4) {
            return address.getHostAddress();
        }
        for (int i = 8; i < 16; i++) {
            bytes[i] = 0;
        }
        return IpLiterals.format(bytes) + "/64";
    }

    private boolean trusted(InetAddress address) {
        for (Cidr cidr : trustedProxies) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    private static Optional<InetAddress> peer(ServerRequest req) {
        if (req.remotePeer().address() instanceof InetSocketAddress socket && socket.getAddress() != null) {
            return Optional.of(socket.getAddress());
        }
        return Optional.empty();
    }

    private static List<String> splitList(List<String> lines) {
        List<String> items = new ArrayList<>();
        for (String line : lines) {
            for (String item : line.split(",")) {
                if (!item.isBlank()) {
                    items.add(item.strip());
                }
            }
        }
        return items;
    }

    /** The values of parameter {@code name} in {@code Forwarded} elements, in order (RFC 7239 section 4). */
    static List<String> forwardedParams(List<String> lines, String name) {
        List<String> values = new ArrayList<>();
        for (String element : splitList(lines)) {
            for (String pair : element.split(";")) {
                int eq = pair.indexOf('=');
                if (eq > 0
                        && pair.substring(0, eq)
                                .strip()
                                .toLowerCase(Locale.ROOT)
                                .equals(name)) {
                    values.add(unquote(pair.substring(eq + 1).strip()));
                }
            }
        }
        return values;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1)
                : value;
    }

    /** {@code [2001:db8::1]:4711} to {@code 2001:db8::1}, {@code 192.0.2.1:80} to {@code 192.0.2.1}. */
    private static String stripPort(String hop) {
        if (hop.startsWith("[")) {
            int close = hop.indexOf(']');
            return close < 0 ? hop : hop.substring(1, close);
        }
        int colon = hop.indexOf(':');
        return colon >= 0 && colon == hop.lastIndexOf(':') ? hop.substring(0, colon) : hop;
    }
}
