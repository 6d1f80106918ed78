package dev.warden.runtime.outbound;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The SSRF guard of webhook targets. A target must be an absolute {@code http} or {@code https} URL with a
 * host and no user info; and, unless private targets are allowed, every address its host resolves to must be
 * public: not unspecified, loopback, link-local, private (RFC 1918, RFC 6598 shared space), unique-local
 * (RFC 4193), site-local, multicast or reserved, IPv4 or IPv6, including IPv4 addresses embedded in IPv6
 * (mapped, compatible, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}).
 *
 * <p>Checked when an endpoint is created and again before every delivery attempt, since DNS answers can
 * change; and, above all, when the connection is made: {@link GuardedHttp} resolves the host through
 * {@link #checkedAddresses} and connects only to the addresses that passed, so a resolver that answers differently
 * between a check and the connection gains nothing. Thread-safe.
 */
public final class TargetGuard {
    /** Resolves a host name (or literal) to its addresses; {@link InetAddress#getAllByName} in production. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** What a check found. */
    public enum Outcome {
        /** The target may be called. */
        ALLOWED,
        /** The target is not acceptable; retrying will not help. */
        REFUSED,
        /** The host could not be resolved now; it may resolve later. */
        UNRESOLVED
    }

    /** The outcome of a check and, unless allowed, why (safe to show to the endpoint's owner). */
    public record Verdict(Outcome outcome, String reason) {
        static final Verdict ALLOW = new Verdict(Outcome.ALLOWED, "");

        public boolean allowed() {
            return outcome == Outcome.ALLOWED;
        }
    }

    private static final List<Range> FORBIDDEN_V4 = List.of(
            Range.v4(0, 0, 0, 0, 8), // "this" network, unspecified
            Range.v4(10, 0, 0, 0, 8), // private (RFC 1918)
            Range.v4(100, 64, 0, 0, 10), // shared address space, carrier-grade NAT (RFC 6598)
            Range.v4(127, 0, 0, 0, 8), // loopback
            Range.v4(169, 254, 0, 0, 16), // link-local, cloud metadata services
            Range.v4(172, 16, 0, 0, 12), // private (RFC 1918)
            Range.v4(192, 0, 0, 0, 24), // IETF protocol assignments
            Range.v4(192, 168, 0, 0, 16), // private (RFC 1918)
            Range.v4(198, 18, 0, 0, 15), // benchmarking
            Range.v4(224, 0, 0, 0, 4), // multicast
            Range.v4(240, 0, 0, 0, 4)); // reserved, limited broadcast

    private static final List<Range> FORBIDDEN_V6 = List.of(
            Range.v6(new byte[16], 128), // :: unspecified
            Range.v6(v6Prefix(0, 0, 0, 0, 0, 0, 0, 1), 128), // ::1 loopback
            Range.v6(v6Prefix(0xfe80), 10), // link-local
            Range.v6(v6Prefix(0xfec0), 10), // site-local (deprecated)
            Range.v6(v6Prefix(0xfc00), 7), // unique local (RFC 4193)
            Range.v6(v6Prefix(0xff00), 8)); // multicast

    private final Resolver resolver;
    private final boolean allowPrivateTargets;

    /**
     * @param allowPrivateTargets when true, only the URL's form is checked (for tests and closed networks)
     */
    public TargetGuard(Resolver resolver, boolean allowPrivateTargets) {
        this.resolver = resolver;
        this.allowPrivateTargets = allowPrivateTargets;
    }

    /** A guard resolving with the JDK's resolver, as the HTTP client does. */
    public static TargetGuard system(boolean allowPrivateTargets) {
        return new TargetGuard(InetAddress::getAllByName, allowPrivateTargets);
    }

    /** Checks {@code url}; may resolve its host (blocking). */
    public Verdict check(URI url) {
        Optional<String> formProblem = formProblem(url);
        if (formProblem.isPresent()) {
            return new Verdict(Outcome.REFUSED, formProblem.get());
        }
        if (allowPrivateTargets) {
            return Verdict.ALLOW;
        }
        try {
            checkedAddresses(url.getHost());
        } catch (GuardedHttp.RefusedTarget e) {
            return new Verdict(Outcome.REFUSED, e.getMessage());
        } catch (UnknownHostException e) {
            return new Verdict(Outcome.UNRESOLVED, "its host cannot be resolved");
        }
        return Verdict.ALLOW;
    }

    /**
     * The addresses of {@code host} (a name or a literal), resolved once, when every one may be connected to.
     *
     * @throws GuardedHttp.RefusedTarget when any is loopback, private, link-local or otherwise forbidden
     * @throws UnknownHostException      when the host does not resolve
     */
    public InetAddress[] checkedAddresses(String host) throws UnknownHostException {
        InetAddress[] addresses = resolver.resolve(bareHost(host));
        if (addresses.length == 0) {
            throw new UnknownHostException(host);
        }
        if (!allowPrivateTargets) {
            for (InetAddress address : addresses) {
                if (isForbidden(address)) {
                    throw new GuardedHttp.RefusedTarget("must not target a loopback, link-local, private, "
                            + "unique-local, multicast or reserved address (" + address.getHostAddress() + ")");
                }
            }
        }
        return addresses;
    }

    /**
     * {@code text} as an outbound URL (a webhook's, a Shared Signals push endpoint's).
     *
     * @throws IllegalArgumentException saying what is wrong with its form ({@link #formProblem})
     */
    public static URI parseUrl(String text) {
        URI url;
        try {
            url = new URI(text);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("must be an absolute http or https URL");
        }
        formProblem(url).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
        return url;
    }

    /** What is wrong with the form of {@code url}, if anything: scheme, host, user info. */
    public static Optional<String> formProblem(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!url.isAbsolute() || !(scheme.equals("http") || scheme.equals("https"))) {
            return Optional.of("must be an absolute http or https URL");
        }
        if (url.getHost() == null || url.getHost().isEmpty()) {
            return Optional.of("must name a host");
        }
        if (url.getRawUserInfo() != null) {
            return Optional.of("must not contain user info (credentials)");
        }
        return Optional.empty();
    }

    /** True when {@code address} is in a range no webhook may target. */
    public static boolean isForbidden(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (address instanceof Inet4Address) {
            return FORBIDDEN_V4.stream().anyMatch(r -> r.contains(bytes));
        }
        if (address instanceof Inet6Address) {
            return FORBIDDEN_V6.stream().anyMatch(r -> r.contains(bytes))
                    || embeddedV4(bytes)
                            .map(v4 -> FORBIDDEN_V4.stream().anyMatch(r -> r.contains(v4)))
                            .orElse(false);
        }
        return true;
    }

    /** The IPv4 address carried by a mapped, compatible, NAT64 or 6to4 IPv6 address. */
    private static Optional<byte[]> embeddedV4(byte[] v6) {
        boolean firstTenZero = allZero(v6, 0, 10);
        if (firstTenZero && (v6[10] & 0xff) == 0xff && (v6[11] & 0xff) == 0xff) {
            return Optional.of(Arrays.copyOfRange(v6, 12, 16)); // ::ffff:a.b.c.d
        }
        if (firstTenZero && v6[10] == 0 && v6[11] == 0) {
            return Optional.of(Arrays.copyOfRange(v6, 12, 16)); // ::a.b.c.d (deprecated compatible form)
        }
        if ((v6[0] & 0xff) == 0x00
                && (v6[1] & 0xff) == 0x64
                && (v6[2] & 0xff) == 0xff
                && (v6[3] & 0xff) == 0x9b
                && allZero(v6, 4, 12)) {
            return Optional.of(Arrays.copyOfRange(v6, 12, 16)); // 64:ff9b::a.b.c.d (NAT64)
        }
        if ((v6[0] & 0xff) == 0x20 && (v6[1] & 0xff) == 0x02) {
            return Optional.of(Arrays.copyOfRange(v6, 2, 6)); // 2002:aabb:ccdd::/48 (6to4)
        }
        return Optional.empty();
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static String bareHost(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static byte[] v6Prefix(int... groups) {
        byte[] bytes = new byte[16];
        for (int i = 0; i < groups.length; i++) {
            bytes[2 * i] = (byte) (groups[i] >>> 8);
            bytes[2 * i + 1] = (byte) groups[i];
        }
        return bytes;
    }

    /** A CIDR range over raw address bytes. */
    private record Range(byte[] prefix, int bits) {
        static Range v4(int a, int b, int c, int d, int bits) {
            return new Range(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d}, bits);
        }

        static Range v6(byte[] prefix, int bits) {
            return new Range(prefix, bits);
        }

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (prefix[full] & mask);
        }
    }
}
