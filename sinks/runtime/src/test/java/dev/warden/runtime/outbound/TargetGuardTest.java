package dev.warden.runtime.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetGuardTest {
    /** Resolves literals (no I/O for them) and a few fixed names; anything else is unknown. */
    private static final Map<String, List<String>> DNS = Map.of(
            "public.example", List.of("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
            "sneaky.example", List.of("93.184.215.14", "10.1.2.3"));

    private static InetAddress[] resolve(String host) throws UnknownHostException {
        List<String> answer = DNS.get(host);
        if (answer == null) {
            if (!host.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
                throw new UnknownHostException(host);
            }
            return new InetAddress[] {InetAddress.getByName(host)};
        }
        InetAddress[] out = new InetAddress[answer.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = InetAddress.getByName(answer.get(i));
        }
        return out;
    }

    private final TargetGuard guard = new TargetGuard(TargetGuardTest::resolve, false);

    private TargetGuard.Outcome check(String url) {
        return guard.check(URI.create(url)).outcome();
    }

    @Test
    void nonPublicIpv4TargetsAreRefused() {
        for (String host : List.of(
                "127.0.0.1",
                "127.9.9.9",
                "10.0.0.1",
                "172.16.0.1",
                "172.31.255.255",
                "192.168.1.1",
                "169.254.169.254",
                "100.64.0.1",
                "0.0.0.0",
                "224.0.0.1",
                "239.255.255.250",
                "255.255.255.255",
                "198.18.0.1")) {
            assertThat(check("http://" + host + "/hook")).as(host).isEqualTo(TargetGuard.Outcome.REFUSED);
        }
    }

    @Test
    void nonPublicIpv6TargetsIncludingEmbeddedIpv4AreRefused() {
        for (String host : List.of(
                "::1",
                "::",
                "fe80::1",
                "fc00::1",
                "fd12:3456::1",
                "ff02::1",
                "fec0::1",
                "64:ff9b::a00:1",
                "2002:7f00:1::1",
                "::7f00:1")) {
            assertThat(check("http://[" + host + "]:8080/hook")).as(host).isEqualTo(TargetGuard.Outcome.REFUSED);
        }
        assertThat(TargetGuard.isForbidden(ipv4Mapped(127, 0, 0, 1))).isTrue();
        assertThat(TargetGuard.isForbidden(ipv4Mapped(8, 8, 8, 8))).isFalse();
    }

    @Test
    void publicTargetsAreAllowed() {
        assertThat(check("https://public.example/hooks?x=1")).isEqualTo(TargetGuard.Outcome.ALLOWED);
        assertThat(check("http://8.8.8.8/")).isEqualTo(TargetGuard.Outcome.ALLOWED);
        assertThat(check("http://172.32.0.1/")).isEqualTo(TargetGuard.Outcome.ALLOWED);
        assertThat(check("http://[2001:4860:4860::8888]/")).isEqualTo(TargetGuard.Outcome.ALLOWED);
    }

    @Test
    void aHostWithAnyNonPublicAddressIsRefused() {
        TargetGuard.Verdict verdict = guard.check(URI.create("https://sneaky.example/"));

        assertThat(verdict.outcome()).isEqualTo(TargetGuard.Outcome.REFUSED);
        assertThat(verdict.reason()).contains("10.1.2.3");
    }

    @Test
    void anUnresolvableHostIsUnresolvedNotRefused() {
        assertThat(check("https://nowhere.invalid/")).isEqualTo(TargetGuard.Outcome.UNRESOLVED);
    }

    @Test
    void onlyAbsoluteHttpUrlsWithAHostAndNoCredentialsAreAccepted() {
        assertThat(check("ftp://public.example/")).isEqualTo(TargetGuard.Outcome.REFUSED);
        assertThat(check("file:///etc/passwd")).isEqualTo(TargetGuard.Outcome.REFUSED);
        assertThat(check("/relative")).isEqualTo(TargetGuard.Outcome.REFUSED);
        assertThat(check("https://user:pw@public.example/")).isEqualTo(TargetGuard.Outcome.REFUSED);
    }

    @Test
    void allowingPrivateTargetsSkipsAddressChecksButNotTheUrlForm() {
        TargetGuard open = new TargetGuard(
                host -> {
                    throw new AssertionError("must not resolve when private targets are allowed");
                },
                true);

        assertThat(open.check(URI.create("http://127.0.0.1:1/x")).allowed()).isTrue();
        assertThat(open.check(URI.create("gopher://127.0.0.1/")).outcome()).isEqualTo(TargetGuard.Outcome.REFUSED);
    }

    private static InetAddress ipv4Mapped(int a, int b, int c, int d) {
        byte[] bytes = new byte[16];
        bytes[10] = (byte) 0xff;
        bytes[11] = (byte) 0xff;
        bytes[12] = (byte) a;
        bytes[13] = (byte) b;
        bytes[14] = (byte) c;
        bytes[15] = (byte) d;
        try {
            // getByAddress would turn a mapped address into an Inet4Address; build the Inet6Address explicitly.
            return java.net.Inet6Address.getByAddress(null, bytes, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
