package dev.warden.cli;

import dev.warden.client.WardenException;

/**
 * What {@code warden}'s exit status means (docs/cli.md): scripts branch on these, so they never change.
 */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The server refused the request for another reason (a 4xx not listed below); the message says which. */
    public static final int REFUSED = 1;
    /** The command line is wrong (unknown command or option, a bad value). */
    public static final int USAGE = 2;
    /** Not signed in, or the sign-in ended (401): run {@code warden login}. */
    public static final int NOT_SIGNED_IN = 3;
    /** Signed in, but not allowed (403). */
    public static final int FORBIDDEN = 4;
    /** No such thing, or not yours (404). */
    public static final int NOT_FOUND = 5;
    /** A conflict or a limit (409, 429): try later or change the request. */
    public static final int CONFLICT = 6;
    /** The server could not be reached, or failed (5xx). */
    public static final int UNAVAILABLE = 7;
    /** {@code warden doctor} found a critical weakness. */
    public static final int CRITICAL_FINDINGS = 9;
    /** {@code warden authorize}: the decision is a denial. */
    public static final int DENIED = 10;

    private ExitCodes() {}

    /** The status of a failed request. */
    public static int of(WardenException e) {
        int status = e.status();
        if (status == 0 || status / 100 == 5) {
            return UNAVAILABLE;
        }
        return switch (status) {
            case 401 -> NOT_SIGNED_IN;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 409, 429 -> CONFLICT;
            default -> REFUSED;
        };
    }
}
