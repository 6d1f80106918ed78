package dev.warden.authorizer.condition;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An IPv4 or IPv6 address range in CIDR notation ({@code 10.0.0.0/8}, {@code 2001:db8::/32}); a bare address is a
 * range of one. Only literals are read: nothing here resolves a name. Immutable.
 */
public final class Cidr {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private final byte[] network;
    private final int prefix;

    private Cidr(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /**
     * The range {@code text} names.
     *
     * @throws IllegalArgumentException when it is not an address literal with an optional prefix length in range,
     *     or when bits beyond the prefix are set ({@code 10.0.0.1/8})
     */
    public static Cidr parse(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        byte[] bytes = address(address)
                .orElseThrow(
                        () -> new IllegalArgumentException("is not an IPv4 or IPv6 address range in CIDR notation"));
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String length = text.substring(slash + 1);
            if (!length.matches("\\d{1,3}") || Integer.parseInt(length) > bits) {
                throw new IllegalArgumentException("has a prefix length that is not between 0 and " + bits);
            }
            prefix = Integer.parseInt(length);
        }
        for (int bit = prefix; bit < bits; bit++) {
            if ((bytes[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                throw new IllegalArgumentException("has address bits set beyond its prefix length");
            }
        }
        return new Cidr(bytes, prefix);
    }

    /** True when {@code ip}, an address literal, lies in this range; false for anything else. */
    public boolean contains(String ip) {
        Optional<byte[]> bytes = address(ip);
        if (bytes.isEmpty() || bytes.get().length != network.length) {
            return false;
        }
        byte[] b = bytes.get();
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((b[bit / 8] & mask) != (network[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of an address literal: 4 for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 literal reads as IPv4). */
    static Optional<byte[]> address(String text) {
        boolean v4 = IPV4.matcher(text).matches()
                && Arrays.stream(text.split("\\.")).allMatch(octet -> Integer.parseInt(octet) <= 255);
        if (!v4 && !(text.indexOf(':') >= 0 && IPV6.matcher(text).matches())) {
            return Optional.empty();
        }
        try {
            // Only a literal reaches here (checked above), so this resolves nothing.
            return Optional.of(InetAddress.getByName(text).getAddress());
        } catch (UnknownHostException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefix == prefix && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefix;
    }
}
