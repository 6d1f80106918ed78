package dev.warden.api.oauth.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.impl.BaseJWSProvider;
import com.nimbusds.jose.crypto.impl.ECDSA;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.util.Base64URL;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Signature;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ES256 signatures of one key with {@link Signature} objects kept initialized between uses (D190): Nimbus's own
 * signer looks the algorithm up in the provider and makes a {@code SecureRandom} for every signature, three fifths
 * of what a signature cost in the JVM once AWS-LC did the arithmetic. A {@code Signature} is used by one thread at a
 * time (taken from the pool, returned after); after {@code sign()} it is ready for the next signature with the same
 * key (JCA). The JOSE form is R and S concatenated (RFC 7518 section 3.4), transcoded from the provider's DER.
 */
final class Es256Signer extends BaseJWSProvider implements JWSSigner {
    /** At most this many idle {@code Signature}s are kept: enough for the requests signing at once on this host. */
    static final int MAX_IDLE = 64;

    private static final String ALGORITHM = "SHA256withECDSA";
    private static final int SIGNATURE_LENGTH = 64;

    private final PrivateKey key;
    private final Optional<Provider> provider;
    private final ConcurrentLinkedQueue<Signature> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger idleCount = new AtomicInteger();

    Es256Signer(ECKey key, Optional<Provider> provider) throws JOSEException {
        super(Set.of(JWSAlgorithm.ES256));
        if (!Curve.P_256.equals(key.getCurve()) || !key.isPrivate()) {
            throw new JOSEException("ES256 needs the private part of a P-256 key");
        }
        this.key = key.toECPrivateKey();
        this.provider = provider;
        // One made now: a key the provider cannot sign with fails here, not at the first token.
        release(take());
    }

    @Override
    public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
        if (!JWSAlgorithm.ES256.equals(header.getAlgorithm())) {
            throw new JOSEException("this signer makes ES256 signatures only, not " + header.getAlgorithm());
        }
        Signature signature = take();
        byte[] der;
        try {
            signature.update(signingInput);
            der = signature.sign();
        } catch (GeneralSecurityException e) {
            // A Signature that failed mid-use is not returned to the pool.
            throw new JOSEException("cannot sign with ES256: " + e.getMessage(), e);
        }
        release(signature);
        return Base64URL.encode(ECDSA.transcodeSignatureToConcat(der, SIGNATURE_LENGTH));
    }

    private Signature take() throws JOSEException {
        Signature pooled = idle.poll();
        if (pooled != null) {
            idleCount.decrementAndGet();
            return pooled;
        }
        try {
            Signature made = provider.isPresent()
                    ? Signature.getInstance(ALGORITHM, provider.get())
                    : Signature.getInstance(ALGORITHM);
            made.initSign(key);
            return made;
        } catch (GeneralSecurityException e) {
            throw new JOSEException("cannot sign with ES256: " + e.getMessage(), e);
        }
    }

    private void release(Signature signature) {
        if (idleCount.incrementAndGet() <= MAX_IDLE) {
            idle.offer(signature);
        } else {
            idleCount.decrementAndGet();
        }
    }
}
