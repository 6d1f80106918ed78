package dev.warden.api.doctor;

import dev.warden.pipeline.contract.WireEnum;

/** How urgent a {@link Finding} is; the declaration order is the order of the doctor's report, most urgent first. */
public enum Severity implements WireEnum {
    /** An attacker can use it now, or audit records can be lost: fix before anything else. */
    CRITICAL("critical"),
    /** Weakens a defence or will hurt under load or failure: fix soon. */
    WARNING("warning"),
    /** A deliberate default worth knowing about: decide whether it fits this deployment. */
    INFO("info");

    private final String wireName;

    Severity(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
