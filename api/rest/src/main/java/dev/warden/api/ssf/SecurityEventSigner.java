package dev.warden.api.ssf;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.keys.SigningKeys;
import dev.warden.sinks.ssf.SetSigner;
import java.text.ParseException;
import java.util.Map;

/**
 * Signs Security Event Tokens with the authorization server's current ES256 key (the one its JWKS publishes):
 * header {@code typ: secevent+jwt} (RFC 8417 section 2.3) and the key's {@code kid}.
 */
public final class SecurityEventSigner implements SetSigner {
    static final JOSEObjectType SECEVENT = new JOSEObjectType("secevent+jwt");

    private final SigningKeys keys;

    public SecurityEventSigner(SigningKeys keys) {
        this.keys = keys;
    }

    @Override
    public String sign(Map<String, Object> claims) {
        ECKey key = keys.signingKey();
        try {
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.ES256)
                            .type(SECEVENT)
                            .keyID(key.getKeyID())
                            .build(),
                    JWTClaimsSet.parse(claims));
            jwt.sign(keys.signer(key));
            return jwt.serialize();
        } catch (JOSEException | ParseException e) {
            throw new IllegalStateException("cannot sign a security event token", e);
        }
    }
}
