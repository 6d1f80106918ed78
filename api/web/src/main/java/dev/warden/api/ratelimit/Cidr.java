package dev.warden.api.ratelimit;

import java.net.InetAddress;
import java.util.Arrays;

/**
 * A network prefix such as {@code 10.0.0.0/8}, {@code 2001:db8::/32} or a single address ({@code 192.0.2.7},
 * read as {@code /32} or {@code /128}). IPv4-mapped IPv6 addresses match IPv4 prefixes.
 *
 * @param network the address bytes (4 or 16)
 * @param bits    the prefix length
 */
public record Cidr(byte[] network, int bits) {
    public Cidr {
        network = network.clone();
        if (bits < 0 || bits > network.length * 8) {
            throw new IllegalArgumentException("prefix length " + bits + " is out of range");
        }
    }

    /**
     * Parses {@code address[/bits]}.
     *
     * @throws IllegalArgumentException when it is not an IP literal with an optional prefix length
     */
    public static Cidr parse(String text) {
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        InetAddress ip = IpLiterals.parse(address)
                .orElseThrow(() -> new IllegalArgumentException("'" + text + "' is not an IP address or CIDR prefix"));
        byte[] bytes = ip.getAddress();
        int bits = bytes.length * 8;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(trimmed.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has a bad prefix length");
            }
        }
        return new Cidr(bytes, bits);
    }

    /** True when {@code address} lies in this prefix. */
    public boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        int whole = bits / 8;
        for (int i = 0; i < whole; i++) {
            if (candidate[i] != network[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (candidate[whole] & mask) == (network[whole] & mask);
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr other && bits == other.bits && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + bits;
    }

    @Override
    public String toString() {
        return IpLiterals.format(network) + "/" + bits;
    }
}
