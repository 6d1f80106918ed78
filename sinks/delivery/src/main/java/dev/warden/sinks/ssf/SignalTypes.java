package dev.warden.sinks.ssf;

import java.util.List;

/**
 * The Security Event Token event types Warden transmits (CAEP 1.0, RISC 1.0, and SSF 1.0's own verification
 * event), and the delivery methods it offers (docs/shared-signals.md).
 */
public final class SignalTypes {
    private static final String CAEP = "https://schemas.openid.net/secevent/caep/event-type/";
    private static final String RISC = "https://schemas.openid.net/secevent/risc/event-type/";

    /** CAEP: every session (token) of the subject ended: an agent revoked or suspended. */
    public static final String SESSION_REVOKED = CAEP + "session-revoked";
    /** CAEP: a credential of the subject changed: an agent's token rotated. */
    public static final String CREDENTIAL_CHANGE = CAEP + "credential-change";
    /** CAEP: claims of the subject's tokens changed: its permissions, or a delegation to it. */
    public static final String TOKEN_CLAIMS_CHANGE = CAEP + "token-claims-change";
    /** RISC: the account was disabled: a person's account locked after repeated failed sign-ins. */
    public static final String ACCOUNT_DISABLED = RISC + "account-disabled";
    /** RISC: the account's recovery flow was used: a person reset their password through e-mail. */
    public static final String RECOVERY_ACTIVATED = RISC + "recovery-activated";
    /** SSF: the answer to a receiver's verification request. */
    public static final String VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification";

    /** Every event type a stream may request, in the order the metadata lists them. */
    public static final List<String> SUPPORTED =
            List.of(SESSION_REVOKED, CREDENTIAL_CHANGE, TOKEN_CLAIMS_CHANGE, ACCOUNT_DISABLED, RECOVERY_ACTIVATED);

    /** Push delivery (RFC 8935). */
    public static final String PUSH = "urn:ietf:rfc:8935";
    /** Poll delivery (RFC 8936). */
    public static final String POLL = "urn:ietf:rfc:8936";

    private SignalTypes() {}
}
