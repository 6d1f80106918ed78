package dev.warden.api.oauth.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import java.security.Provider;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Where the OAuth keys' ES256 signatures are computed and checked (D189): in AWS-LC, through the Amazon Corretto
 * Crypto Provider, when its native library loads on this machine (Linux x86-64), which signs and verifies P-256 about
 * ten times faster than the JDK's own code; else in the JDK. The provider serves these signatures only: it is never
 * installed as the process's provider, so TLS, random numbers and everything else stay the JDK's.
 */
public final class EcdsaProvider {
    private static final Logger LOG = Logger.getLogger(EcdsaProvider.class.getName());
    private static final Optional<Provider> NATIVE = load();

    private EcdsaProvider() {}

    /** The native provider, when it loaded and passed its own self-test. */
    public static Optional<Provider> nativeProvider() {
        return NATIVE;
    }

    /** An ES256 signer of {@code key} in the native provider when there is one (its signatures pooled, D190). */
    public static JWSSigner signer(ECKey key) throws JOSEException {
        return new Es256Signer(key, NATIVE);
    }

    /** A verifier of {@code key} in the native provider when there is one. */
    public static JWSVerifier verifier(ECKey key) throws JOSEException {
        ECDSAVerifier verifier = new ECDSAVerifier(key);
        NATIVE.ifPresent(p -> verifier.getJCAContext().setProvider(p));
        return verifier;
    }

    private static Optional<Provider> load() {
        try {
            Class<?> type = Class.forName("com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider");
            Provider provider = (Provider) type.getField("INSTANCE").get(null);
            Throwable error = (Throwable) type.getMethod("getLoadingError").invoke(provider);
            if (error != null) {
                LOG.info("ES256 signatures in the JDK: the native provider did not load here (" + error + ")");
                return Optional.empty();
            }
            type.getMethod("assertHealthy").invoke(provider);
            LOG.fine("ES256 signatures in AWS-LC (" + provider.getName() + " " + provider.getVersionStr() + ")");
            return Optional.of(provider);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            LOG.info("ES256 signatures in the JDK: the native provider is not usable here (" + e + ")");
            return Optional.empty();
        }
    }
}
