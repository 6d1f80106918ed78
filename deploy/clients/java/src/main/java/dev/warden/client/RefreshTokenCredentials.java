package dev.warden.client;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A person's sign-in kept as a refresh token (what {@link DeviceLogin} returns): access tokens come from the
 * refresh grant, each used until shortly before it expires. Warden rotates refresh tokens, so every renewal hands
 * the new {@link Session} to {@code onRenewal}, to be stored in place of the old one (presenting a spent refresh
 * token again revokes the whole sign-in); a program that keeps the session between runs also keeps the access
 * token, and so does not spend a refresh on every start.
 */
public final class RefreshTokenCredentials extends RenewingCredentials {
    /** What to keep between runs: the current access token, when it expires, and the refresh token. */
    public record Session(String accessToken, Instant expiresAt, String refreshToken) {}

    private final String clientId;
    private final Consumer<Session> onRenewal;
    private String refreshToken;

    RefreshTokenCredentials(OAuthTokens tokens, String clientId, Session session, Consumer<Session> onRenewal) {
        super(tokens, OAuthTokens.Issued.kept(session.accessToken(), session.expiresAt()));
        this.clientId = clientId;
        this.refreshToken = session.refreshToken();
        this.onRenewal = onRenewal;
    }

    @Override
    synchronized OAuthTokens.Issued renew() {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "refresh_token");
        form.put("client_id", clientId);
        form.put("refresh_token", refreshToken);
        OAuthTokens.Issued issued = tokens().issued(tokens().post("token_endpoint", form));
        issued.refreshToken().ifPresent(next -> refreshToken = next);
        onRenewal.accept(new Session(issued.accessToken(), issued.expiresAt(), refreshToken));
        return issued;
    }
}
