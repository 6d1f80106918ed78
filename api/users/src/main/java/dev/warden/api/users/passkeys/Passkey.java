package dev.warden.api.users.passkeys;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A passkey as its owner sees it: its id, the name they gave it, the transports the authenticator reported, whether
 * it is synced between devices (backed up, WebAuthn's BS flag), and when it was added and last used.
 */
public record Passkey(
        String id,
        String name,
        List<String> transports,
        boolean backedUp,
        Instant createdAt,
        Optional<Instant> lastUsedAt) {
    public Passkey {
        transports = List.copyOf(transports);
    }
}
