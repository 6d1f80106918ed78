package dev.warden.api.ratelimit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** IP address literals, parsed without ever touching DNS (a header value must not trigger a lookup). */
final class IpLiterals {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private IpLiterals() {}

    /** The address of an IPv4 dotted quad or an IPv6 literal (no zone id), else empty. */
    static Optional<InetAddress> parse(String text) {
        var v4 = IPV4.matcher(text);
        if (v4.matches()) {
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int part = Integer.parseInt(v4.group(i + 1));
                if (part > 255) {
                    return Optional.empty();
                }
                bytes[i] = (byte) part;
            }
            return byAddress(bytes);
        }
        if (text.indexOf(':') >= 0 && IPV6.matcher(text).matches()) {
            try {
                // With a ':' the JDK reads the text as an IPv6 literal and never resolves it.
                return Optional.of(InetAddress.getByName(text));
            } catch (UnknownHostException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Text of raw address bytes, for round trips through {@link #parse}. */
    static String format(byte[] bytes) {
        return byAddress(bytes).map(InetAddress::getHostAddress).orElseThrow();
    }

    private static Optional<InetAddress> byAddress(byte[] bytes) {
        try {
            return Optional.of(InetAddress.getByAddress(bytes));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
