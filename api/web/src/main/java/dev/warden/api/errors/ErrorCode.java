package dev.warden.api.errors;

/**
 * Every stable error code Warden answers with, once, with its HTTP status and problem title.
 *
 * <p>The {@code code} strings are part of the API: never renamed, only added to (callers must treat the
 * set as open). Uniqueness is checked by a test.
 */
public enum ErrorCode {
    VALIDATION_INVALID("validation_invalid", 400, "Invalid request"),
    MALFORMED_JSON("malformed_json", 400, "Malformed JSON"),
    BAD_REQUEST("bad_request", 400, "Bad request"),
    UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
    FORBIDDEN("forbidden", 403, "Forbidden"),
    /**
     * A state-changing request authenticated by the session cookie that did not come from Warden's own origin
     * ({@code Origin}, {@code Sec-Fetch-Site}): cross-site request forgery refused.
     */
    CROSS_ORIGIN_REQUEST("cross_origin_request", 403, "Cross-origin request refused"),
    /** An API token without the scope the route needs (RFC 6750 {@code insufficient_scope}). */
    INSUFFICIENT_SCOPE("insufficient_scope", 403, "Insufficient scope"),
    NOT_FOUND("not_found", 404, "Not found"),
    AGENT_NOT_FOUND("agent_not_found", 404, "Agent not found"),
    METHOD_NOT_ALLOWED("method_not_allowed", 405, "Method not allowed"),
    NOT_ACCEPTABLE("not_acceptable", 406, "Not acceptable"),
    AGENT_INACTIVE("agent_inactive", 409, "Agent inactive"),
    AGENT_NOT_SERVICE("agent_not_service", 409, "Only service agents can be OAuth clients"),
    CONFLICT("conflict", 409, "Conflict"),
    PAYLOAD_TOO_LARGE("payload_too_large", 413, "Payload too large"),
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, "Unsupported media type"),
    INTERNAL("internal", 500, "Internal error"),
    // Organizations and their administration (SPEC: Other error conventions, problem codes).
    /** The path names an organization other than the caller's active one. */
    ORG_MISMATCH("org_mismatch", 403, "Organization mismatch"),
    /** The caller has no active organization (none joined, or it left the one it had). */
    NO_ACTIVE_ORG("no_active_org", 403, "No active organization"),
    /** The caller, or the user a request names, is not a member of the organization. */
    USER_NOT_IN_ORG("user_not_in_org", 403, "User not in organization"),
    /** A custom role still assigned to a member cannot be deleted. */
    ROLE_IN_USE("role_in_use", 409, "Role in use"),
    /** A permission name outside the documented catalogue. */
    UNKNOWN_PERMISSION("unknown_permission", 400, "Unknown permission"),
    /** A list cursor that was not issued by Warden for this list, or was altered. */
    BAD_CURSOR("bad_cursor", 400, "Bad cursor"),
    /** An action on an administered resource that does not exist (e.g. POST .../agents/{id}/frobnicate). */
    UNSUPPORTED_ACTION("unsupported_action", 400, "Unsupported action"),
    /** The change would leave the organization without an owner. */
    LAST_OWNER("last_owner", 409, "An organization keeps at least one owner"),
    /** The user is already a member of the organization. */
    ALREADY_MEMBER("already_member", 409, "Already a member"),
    UNAVAILABLE("unavailable", 503, "Service unavailable"),
    /** SPEC Errors: the one answer to any bad username/password pair at sign-in (upper case per the SPEC). */
    INVALID_CREDENTIALS("INVALID_CREDENTIALS", 401, "Invalid credentials"),
    USERNAME_TAKEN("username_taken", 409, "Username taken"),
    EMAIL_TAKEN("email_taken", 409, "E-mail address taken"),
    SIGNUP_CLOSED("signup_closed", 403, "Sign-up is closed"),
    /** The password was right; a second factor must follow ({@code POST /auth/totp/verify} with the challenge). */
    TOTP_REQUIRED("totp_required", 401, "TOTP required"),
    /** A TOTP or recovery code that is wrong, reused, or answers an unknown, used or expired challenge. */
    TOTP_INVALID("totp_invalid", 401, "Invalid TOTP"),
    /**
     * A passkey ceremony's response that did not verify (unknown or spent ceremony, wrong origin or challenge, a bad
     * signature, another user's passkey, a signature counter that went back); the field error gives the reason.
     */
    WEBAUTHN_FAILED("webauthn_failed", 400, "WebAuthn failure"),
    /** A first-run setup token that is wrong, used, claimed by another setup, or expired. */
    SETUP_TOKEN_INVALID("setup_token_invalid", 401, "Setup token invalid"),
    /** The factor is already enrolled: remove it first. */
    ALREADY_ENROLLED("already_enrolled", 409, "Already enrolled"),
    /** Locked after too many failures; answered only after a correct first factor, with {@code Retry-After}. */
    ACCOUNT_LOCKED("account_locked", 423, "Account locked"),
    /** The route asks for a session signed in with a second factor (step-up); sign in again with TOTP. */
    STEP_UP_REQUIRED("step_up_required", 403, "Step-up required"),
    /** An e-mail verification link that is unknown, used, expired, or for an address the account no longer has. */
    EMAIL_VERIFICATION_INVALID("email_verification_invalid", 400, "E-mail verification link invalid"),
    /** A password-reset token that is unknown or was used. */
    PASSWORD_RESET_INVALID("password_reset_invalid", 400, "Password reset invalid"),
    /** A password-reset token past its expiry. */
    PASSWORD_RESET_EXPIRED("password_reset_expired", 400, "Password reset expired"),
    /** A sign-in link that is unknown, used or expired. */
    SIGN_IN_LINK_INVALID("sign_in_link_invalid", 401, "Sign-in link invalid"),
    /** An e-mail sign-in code that is wrong, used, expired or spent, or for no verified address. */
    EMAIL_CODE_INVALID("email_code_invalid", 401, "E-mail code invalid"),
    TOKEN_NOT_FOUND("token_not_found", 404, "API token not found"),
    DELEGATION_NOT_FOUND("delegation_not_found", 404, "Delegation not found"),
    WEBHOOK_NOT_FOUND("webhook_not_found", 404, "Webhook endpoint not found"),
    APPROVAL_NOT_FOUND("approval_not_found", 404, "Approval request not found"),
    /** Shared Signals: no stream with that id that the caller manages. */
    STREAM_NOT_FOUND("stream_not_found", 404, "Stream not found"),
    /** Shared Signals: the caller already manages as many streams as one may. */
    STREAM_LIMIT_REACHED("stream_limit_reached", 409, "Too many streams"),
    /** Shared Signals: a verification asked for sooner than the stream's {@code min_verification_interval}. */
    VERIFICATION_TOO_SOON("verification_too_soon", 429, "Verification requested too soon"),
    /** An approval request that is no longer pending: decided, expired or cancelled. */
    APPROVAL_NOT_PENDING("approval_not_pending", 409, "Approval request no longer pending"),
    SELF_DELEGATION("self_delegation", 400, "An agent cannot delegate to itself"),
    PERMISSION_NOT_HELD("permission_not_held", 403, "Permission not held by the source agent"),
    CONSTRAINT_LOOSENED("constraint_loosened", 400, "Constraints may only tighten"),
    CHAIN_DEPTH_EXCEEDED("chain_depth_exceeded", 409, "Delegation chain too deep"),
    DELEGATION_CYCLE("delegation_cycle", 409, "Delegation would create a cycle"),
    DELEGATION_REVOKED("delegation_revoked", 409, "Delegation revoked or expired"),
    /** Token exchange (RFC 8693): the subject token is not a usable access token of this server. */
    SUBJECT_TOKEN_INVALID("subject_token_invalid", 400, "Subject token invalid"),
    /** Token exchange (RFC 8693): the actor token is missing, of an unsupported type or not an agent's token. */
    ACTOR_TOKEN_INVALID("actor_token_invalid", 400, "Actor token invalid"),
    // OAuth 2.1 (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 8707): the code is the wire "error" value.
    OAUTH_INVALID_REQUEST("invalid_request", 400, "Invalid OAuth request"),
    OAUTH_INVALID_CLIENT("invalid_client", 401, "Client authentication failed"),
    /** Also a redirect URI or PKCE verifier that does not match the code, a used or expired code or token. */
    OAUTH_INVALID_GRANT("invalid_grant", 400, "Invalid grant"),
    OAUTH_INVALID_SCOPE("invalid_scope", 400, "Invalid scope"),
    OAUTH_UNAUTHORIZED_CLIENT("unauthorized_client", 400, "Client not allowed this grant"),
    OAUTH_UNSUPPORTED_GRANT_TYPE("unsupported_grant_type", 400, "Unsupported grant type"),
    OAUTH_UNSUPPORTED_RESPONSE_TYPE("unsupported_response_type", 400, "Unsupported response type"),
    /** RFC 8707: an unknown resource, or one other than the grant's (audience mismatch). */
    OAUTH_INVALID_TARGET("invalid_target", 400, "Invalid resource"),
    OAUTH_INVALID_REDIRECT_URI("invalid_redirect_uri", 400, "Invalid redirect URI"),
    OAUTH_INVALID_CLIENT_METADATA("invalid_client_metadata", 400, "Invalid client metadata"),
    /** Registration without a valid initial access token (RFC 7591 section 3, RFC 6750). */
    OAUTH_INVALID_TOKEN("invalid_token", 401, "Registration token required"),
    /** Registration closed by configuration. */
    OAUTH_ACCESS_DENIED("access_denied", 403, "Registration denied"),
    // Device authorization grant (RFC 8628 section 3.5), answered while a device polls the token endpoint.
    OAUTH_AUTHORIZATION_PENDING("authorization_pending", 400, "Authorization pending"),
    OAUTH_SLOW_DOWN("slow_down", 400, "Polling too fast"),
    OAUTH_EXPIRED_TOKEN("expired_token", 400, "Device code expired"),
    /** The user denied a device's request (the same RFC 6749 error value as above, with RFC 8628's status). */
    OAUTH_DEVICE_ACCESS_DENIED("access_denied", 400, "The user denied the request"),
    /** OpenID CIBA: the {@code login_hint} does not name a person the agent may ask (only its owner). */
    OAUTH_UNKNOWN_USER_ID("unknown_user_id", 400, "Unknown user"),
    /** OpenID CIBA: a {@code binding_message} that cannot be shown. */
    OAUTH_INVALID_BINDING_MESSAGE("invalid_binding_message", 400, "Invalid binding message");

    private final String code;
    private final int status;
    private final String title;

    ErrorCode(String code, int status, String title) {
        this.code = code;
        this.status = status;
        this.title = title;
    }

    /** The stable wire value of the problem's {@code code} member. */
    public String code() {
        return code;
    }

    /** The HTTP status answered with this code. */
    public int status() {
        return status;
    }

    /** The problem's {@code title}. */
    public String title() {
        return title;
    }
}
