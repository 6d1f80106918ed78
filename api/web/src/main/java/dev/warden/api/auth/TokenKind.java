package dev.warden.api.auth;

/** The kinds of bearer token Warden issues, told apart by prefix. */
public enum TokenKind {
    /** An agent's own token ({@code POST /agents}, {@code rotate}). */
    AGENT("wdn_agt_"),
    /** A user's API token ({@code POST /auth/tokens}). */
    API("wdn_api_"),
    /** The bootstrap administrator token of a deployment. */
    ADMIN("wdn_adm_"),
    /** A user's session token ({@code POST /auth/sign-in}, {@code sign-up}); also sent as a cookie. */
    SESSION("wdn_ses_"),
    /** An OAuth client's secret ({@code POST /mcp/register} of a confidential client). */
    CLIENT_SECRET("wdn_cls_"),
    /** An OAuth authorization code (single use, short-lived). */
    AUTHORIZATION_CODE("wdn_cod_"),
    /** An OAuth refresh token (rotated on every use). */
    REFRESH("wdn_rft_"),
    /** An OAuth device code (RFC 8628; single use, short-lived). */
    DEVICE_CODE("wdn_dvc_"),
    /** A backchannel authentication request's {@code auth_req_id} (OpenID CIBA, poll mode). */
    BACKCHANNEL_REQUEST("wdn_bcr_"),
    /** The challenge a sign-in answers with when a second factor must follow (single use, minutes). */
    SIGN_IN_CHALLENGE("wdn_chl_"),
    /** The handle of a passkey registration or sign-in ceremony (single use, minutes). */
    WEBAUTHN_CEREMONY("wdn_wac_"),
    /** The first-run setup token printed on a fresh installation (single use, a day). */
    SETUP("wdn_stp_"),
    /** An administrator's session, started from a session with a second factor (an hour). */
    ADMIN_SESSION("wdn_ads_");

    private final String prefix;

    TokenKind(String prefix) {
        this.prefix = prefix;
    }

    /** The token prefix, e.g. {@code wdn_agt_}. */
    public String prefix() {
        return prefix;
    }
}
