package dev.warden.sinks.external;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.WireEnum;

/** What an external sink sends for each entry (option {@code format}). */
public enum AuditFormat implements WireEnum {
    /** The entry's JSON as on {@code warden.audit} (the default). */
    WARDEN("warden"),
    /** An OCSF 1.8.0 event ({@link OcsfEncoder}). */
    OCSF("ocsf");

    /** The product version OCSF events name in {@code metadata.product.version}. */
    static final String PRODUCT_VERSION = "0.1.0";

    private final String wireName;

    AuditFormat(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    /** {@code entry} in this format, as a JSON object. */
    public ObjectNode encode(AuditEntry entry) {
        return this == OCSF ? OcsfEncoder.encode(entry, PRODUCT_VERSION) : AuditEntryCodec.toJson(entry);
    }
}
