package dev.warden.sinks.ssf;

import java.util.Map;

/**
 * Signs a Security Event Token (RFC 8417): the claims as a compact JWS of type {@code secevent+jwt}, with a key
 * the transmitter's JWKS publishes. The authorization server's signing keys do it; the sinks take only this.
 */
@FunctionalInterface
public interface SetSigner {
    /** {@code claims} (JSON values) signed. */
    String sign(Map<String, Object> claims);
}
