package dev.warden.api.oauth.keys;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.Payload;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import org.junit.jupiter.api.Test;

/**
 * The native provider's ES256 signatures are ES256 as anyone checks them: what it signs, the JDK verifies; what the
 * JDK signs, it verifies; a changed payload fails both ways. On Linux x86-64 (this project's CI) it must load.
 */
class EcdsaProviderTest {
    @Test
    void loadsOnLinuxX86_64() {
        boolean linuxX64 = System.getProperty("os.name").toLowerCase().contains("linux")
                && System.getProperty("os.arch").matches("amd64|x86_64");
        assertThat(EcdsaProvider.nativeProvider().isPresent()).isEqualTo(linuxX64);
    }

    @Test
    void itsSignaturesAndTheJdksAreInterchangeable() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k").generate();

        JWSObject byNative = sign(key, "native");
        byNative.sign(EcdsaProvider.signer(key));
        assertThat(JWSObject.parse(byNative.serialize()).verify(new ECDSAVerifier(key.toPublicJWK())))
                .isTrue();

        JWSObject byJdk = sign(key, "jdk");
        byJdk.sign(new ECDSASigner(key));
        assertThat(JWSObject.parse(byJdk.serialize()).verify(EcdsaProvider.verifier(key.toPublicJWK())))
                .isTrue();

        String[] parts = byNative.serialize().split("\\.");
        String tampered = parts[0] + "." + new Payload("changed").toBase64URL() + "." + parts[2];
        assertThat(JWSObject.parse(tampered).verify(EcdsaProvider.verifier(key.toPublicJWK())))
                .isFalse();
        assertThat(JWSObject.parse(tampered).verify(new ECDSAVerifier(key.toPublicJWK())))
                .isFalse();
    }

    private static JWSObject sign(ECKey key, String payload) {
        return new JWSObject(
                new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).build(), new Payload(payload));
    }
}
