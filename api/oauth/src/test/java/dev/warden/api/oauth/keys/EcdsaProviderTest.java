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

    /**
     * The signer keeps its {@code Signature}s between uses (D190): signatures made at once on many threads, each with
     * a pooled one used again and again, all verify with the JDK, and each is new (ECDSA's random nonce).
     */
    @Test
    void aSignerUsedAgainAndAgainOnManyThreadsSignsEveryPayloadRight() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k").generate();
        com.nimbusds.jose.JWSSigner signer = EcdsaProvider.signer(key);
        ECDSAVerifier jdk = new ECDSAVerifier(key.toPublicJWK());
        java.util.Set<String> signatures = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.List<java.util.concurrent.Future<Boolean>> verified = new java.util.ArrayList<>();
        try (java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 400; i++) {
                String payload = "payload-" + i;
                verified.add(pool.submit(() -> {
                    JWSObject jws = sign(key, payload);
                    jws.sign(signer);
                    signatures.add(jws.getSignature().toString());
                    JWSObject parsed = JWSObject.parse(jws.serialize());
                    return parsed.getPayload().toString().equals(payload) && parsed.verify(jdk);
                }));
            }
        }
        for (java.util.concurrent.Future<Boolean> each : verified) {
            assertThat(each.get()).isTrue();
        }
        assertThat(signatures).hasSize(400);
    }

    @Test
    void aSignerRefusesAPublicKeyAndAnotherAlgorithm() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k").generate();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EcdsaProvider.signer(key.toPublicJWK()))
                .isInstanceOf(com.nimbusds.jose.JOSEException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> EcdsaProvider.signer(key).sign(new JWSHeader(JWSAlgorithm.ES384), new byte[] {1}))
                .isInstanceOf(com.nimbusds.jose.JOSEException.class);
    }

    private static JWSObject sign(ECKey key, String payload) {
        return new JWSObject(
                new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).build(), new Payload(payload));
    }
}
