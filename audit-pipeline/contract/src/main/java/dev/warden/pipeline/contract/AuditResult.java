package dev.warden.pipeline.contract;

import java.util.Locale;

/** The outcome recorded in an audit entry (SPEC: Audit entry). */
public enum AuditResult implements WireEnum {
    ALLOWED,
    DENIED,
    RATE_LIMITED;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
