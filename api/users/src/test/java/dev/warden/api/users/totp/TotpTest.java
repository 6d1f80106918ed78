package dev.warden.api.users.totp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** RFC 6238 Appendix B's test vectors, the accepted window, reuse, and the encodings around the secret. */
class TotpTest {
    private static final byte[] SHA1_KEY = "12345678901234567890".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SHA256_KEY = "12345678901234567890123456789012".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SHA512_KEY =
            "1234567890123456789012345678901234567890123456789012345678901234".getBytes(StandardCharsets.US_ASCII);

    /** Time (seconds), then the 8-digit codes for SHA-1, SHA-256 and SHA-512 (RFC 6238, Appendix B). */
    private static final List<String[]> VECTORS = List.of(
            new String[] {"59", "94287082", "46119246", "90693936"},
            new String[] {"1111111109", "07081804", "68084774", "25091201"},
            new String[] {"1111111111", "14050471", "67062674", "99943326"},
            new String[] {"1234567890", "89005924", "91819424", "93441116"},
            new String[] {"2000000000", "69279037", "90698825", "38618901"},
            new String[] {"20000000000", "65353130", "77737706", "47863826"});

    @Test
    void theRfcTestVectorsMatch() {
        for (String[] v : VECTORS) {
            long step = Totp.step(Instant.ofEpochSecond(Long.parseLong(v[0])));
            assertThat(Totp.code(SHA1_KEY, step, 8, "HmacSHA1"))
                    .as("SHA-1 at " + v[0])
                    .isEqualTo(v[1]);
            assertThat(Totp.code(SHA256_KEY, step, 8, "HmacSHA256"))
                    .as("SHA-256 at " + v[0])
                    .isEqualTo(v[2]);
            assertThat(Totp.code(SHA512_KEY, step, 8, "HmacSHA512"))
                    .as("SHA-512 at " + v[0])
                    .isEqualTo(v[3]);
        }
    }

    @Test
    void aCodeIsGoodOneStepEitherSideOnlyAfterTheLastAcceptedStep() {
        Instant now = Instant.ofEpochSecond(1_111_111_111);
        long step = Totp.step(now);
        String current = Totp.code(SHA1_KEY, step);
        assertThat(current).isEqualTo("050471");

        assertThat(Totp.match(SHA1_KEY, current, now, -1)).isEqualTo(OptionalLong.of(step));
        assertThat(Totp.match(SHA1_KEY, Totp.code(SHA1_KEY, step - 1), now, -1)).isEqualTo(OptionalLong.of(step - 1));
        assertThat(Totp.match(SHA1_KEY, Totp.code(SHA1_KEY, step + 1), now, -1)).isEqualTo(OptionalLong.of(step + 1));
        assertThat(Totp.match(SHA1_KEY, Totp.code(SHA1_KEY, step - 2), now, -1)).isEmpty();
        assertThat(Totp.match(SHA1_KEY, Totp.code(SHA1_KEY, step + 2), now, -1)).isEmpty();
        assertThat(Totp.match(SHA1_KEY, current, now, step))
                .as("the step was accepted already")
                .isEmpty();
        assertThat(Totp.match(SHA1_KEY, "12345", now, -1)).isEmpty();
        assertThat(Totp.match(SHA1_KEY, "05047a", now, -1)).isEmpty();
    }

    @Test
    void secretsRoundTripThroughBase32() {
        assertThat(Base32.encode("foobar".getBytes(StandardCharsets.US_ASCII))).isEqualTo("MZXW6YTBOI");
        assertThat(Base32.decode("mzxw6ytboi")).isEqualTo("foobar".getBytes(StandardCharsets.US_ASCII));
        byte[] secret = Totp.newSecret();
        assertThat(secret).hasSize(20);
        assertThat(Base32.decode(Base32.encode(secret))).isEqualTo(secret);
    }

    @Test
    void recoveryCodesAreTenDistinctAndTypedLoosely() {
        List<String> codes = RecoveryCodes.mint();
        assertThat(codes).hasSize(10).doesNotHaveDuplicates();
        String code = codes.getFirst();
        assertThat(code).matches("[a-z2-9]{5}-[a-z2-9]{5}");
        assertThat(RecoveryCodes.hash(code.toUpperCase().replace("-", " ")))
                .get()
                .isEqualTo(RecoveryCodes.hash(code).orElseThrow());
        assertThat(RecoveryCodes.hash("short")).isEmpty();
        assertThat(RecoveryCodes.hash("abcde-fghi1"))
                .as("1 is not in the alphabet")
                .isEmpty();
    }

    @Test
    void theEnrolmentQrCodeIsAnSvg() {
        String svg = QrSvg.of("otpauth://totp/Warden:alice?secret=MZXW6YTBOI&issuer=Warden");
        assertThat(svg)
                .startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"")
                .contains("<path")
                .endsWith("</svg>");
    }
}
