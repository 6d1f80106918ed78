package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientIpTest {
    static final InetAddress PROXY = ip("10.0.0.5");
    static final InetAddress STRANGER = ip("198.51.100.7");
    final ClientIp behindProxies = new ClientIp(List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8:ffff::/48")));

    static InetAddress ip(String literal) {
        return IpLiterals.parse(literal).orElseThrow();
    }

    @Test
    void withoutTrustedProxiesForwardingHeadersAreIgnored() {
        ClientIp none = ClientIp.untrusting();

        assertThat(none.resolve(PROXY, List.of("203.0.113.9"), List.of("for=203.0.113.8")))
                .isEqualTo(PROXY);
    }

    @Test
    void anUntrustedPeerCannotChooseItsAddress() {
        assertThat(behindProxies.resolve(STRANGER, List.of("203.0.113.9"), List.of()))
                .isEqualTo(STRANGER);
    }

    @Test
    void aTrustedPeerIsBelievedAndTheRightMostUntrustedHopWins() {
        InetAddress client = behindProxies.resolve(PROXY, List.of("192.0.2.1, 203.0.113.9, 10.1.1.1"), List.of());

        assertThat(client).isEqualTo(ip("203.0.113.9"));
    }

    @Test
    void severalHeaderLinesAreReadAsOneList() {
        assertThat(behindProxies.resolve(PROXY, List.of("192.0.2.1", "203.0.113.9"), List.of()))
                .isEqualTo(ip("203.0.113.9"));
    }

    @Test
    void forwardedIsReadWhenThereIsNoXForwardedForWithQuotesPortsAndIpv6() {
        assertThat(behindProxies.resolve(
                        PROXY,
                        List.of(),
                        List.of("for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"")))
                .isEqualTo(ip("2001:db8:cafe::17"));
        assertThat(behindProxies.resolve(PROXY, List.of(), List.of("For=\"203.0.113.4:80\"")))
                .isEqualTo(ip("203.0.113.4"));
    }

    @Test
    void aHopThatIsNoAddressStopsAtTheProxyThatReportedIt() {
        assertThat(behindProxies.resolve(PROXY, List.of("203.0.113.9, unknown"), List.of()))
                .isEqualTo(PROXY);
        assertThat(behindProxies.resolve(PROXY, List.of(), List.of("for=_hidden")))
                .isEqualTo(PROXY);
        assertThat(behindProxies.resolve(PROXY, List.of("evil.example.com"), List.of()))
                .isEqualTo(PROXY);
    }

    @Test
    void whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        assertThat(behindProxies.resolve(PROXY, List.of("10.9.9.9, 10.1.1.1"), List.of()))
                .isEqualTo(ip("10.9.9.9"));
    }

    @Test
    void ipv6ClientsAreKeyedByTheirSlash64() {
        assertThat(ClientIp.keyOf(ip("2001:db8:1:2:aaaa::1")))
                .isEqualTo(ClientIp.keyOf(ip("2001:db8:1:2:bbbb::9")))
                .isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(ClientIp.keyOf(ip("2001:db8:1:3::1"))).isNotEqualTo(ClientIp.keyOf(ip("2001:db8:1:2::1")));
        assertThat(ClientIp.keyOf(ip("192.0.2.1"))).isEqualTo("192.0.2.1");
    }

    @Test
    void cidrMatchesByPrefixAcrossByteBoundaries() {
        Cidr cidr = Cidr.parse("192.168.4.0/22");

        assertThat(cidr.contains(ip("192.168.7.255"))).isTrue();
        assertThat(cidr.contains(ip("192.168.8.0"))).isFalse();
        assertThat(cidr.contains(ip("::ffff:192.168.5.1")))
                .as("IPv4-mapped IPv6")
                .isTrue();
        assertThat(Cidr.parse("2001:db8::/32").contains(ip("2001:db8:ffff::1"))).isTrue();
        assertThat(Cidr.parse("2001:db8::/32").contains(ip("192.168.5.1"))).isFalse();
        assertThat(Cidr.parse("203.0.113.7").contains(ip("203.0.113.7"))).isTrue();
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("8.8.8.8"))).isTrue();
    }

    @Test
    void badPrefixesAreRejected() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("example.com/8")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("300.1.1.1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void literalsNeverTriggerNameResolution() {
        assertThat(IpLiterals.parse("localhost")).isEmpty();
        assertThat(IpLiterals.parse("1.2.3")).isEmpty();
        assertThat(IpLiterals.parse("fe80::1%eth0")).isEmpty();
    }
}
