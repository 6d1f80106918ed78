package dev.warden.api.config;

import dev.warden.pipeline.contract.WireEnum;
import java.util.Locale;

/** A process role; one launcher runs any set of them (ARCHITECTURE: Process roles). */
public enum Role implements WireEnum {
    /** The HTTP tier: REST, OAuth, SSE; Postgres repositories. */
    API,
    /** The Kafka Streams quota topology owning per-agent hourly counters. */
    QUOTA,
    /** Kafka Streams topologies for dashboard aggregates, anomalies and budgets. */
    PIPELINE,
    /** Connector-style sink workers (Postgres audit, stream store, webhooks, SIEM). */
    SINKS;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
