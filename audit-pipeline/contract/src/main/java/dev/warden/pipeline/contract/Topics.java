package dev.warden.pipeline.contract;

/**
 * Names and shapes of Warden's Kafka topics (ARCHITECTURE: Topics). Names are configuration; these are
 * the defaults, and {@link #withPrefix(String)} lets tests and shared clusters isolate a deployment.
 *
 * @param audit             decisions' audit entries, keyed by agent id
 * @param auditPartitions   partitions of {@code audit}
 * @param events            every stream event, keyed by subject id; one partition, so ids are totally ordered
 * @param quotaRequests     quota consume requests, keyed by agent id
 * @param quotaReplies      quota replies, keyed by API instance id
 * @param quotaPartitions   partitions of the quota topics (co-partitioned with the counter store)
 * @param replicationFactor replication factor used when Warden creates a missing topic
 * @param dashboardHourly   per-agent hourly decision counts (compacted, kept 49 h), written by the pipeline
 * @param dashboardTotals   per-agent all-time decision counts (compacted), written by the pipeline
 * @param budgetSpend       per-agent spend in the budget's current period against its limit (compacted), written by
 *                          the pipeline
 */
public record Topics(
        String audit,
        int auditPartitions,
        String events,
        String quotaRequests,
        String quotaReplies,
        int quotaPartitions,
        short replicationFactor,
        String dashboardHourly,
        String dashboardTotals,
        String budgetSpend) {

    /** The default topic layout. */
    public static Topics defaults() {
        return new Topics(
                "warden.audit",
                12,
                "warden.events",
                "warden.quota.requests",
                "warden.quota.replies",
                12,
                (short) 1,
                "warden.dashboard.hourly",
                "warden.dashboard.totals",
                "warden.budget.spend");
    }

    /** The same layout with every name prefixed by {@code prefix}. */
    public Topics withPrefix(String prefix) {
        return new Topics(
                prefix + audit,
                auditPartitions,
                prefix + events,
                prefix + quotaRequests,
                prefix + quotaReplies,
                quotaPartitions,
                replicationFactor,
                prefix + dashboardHourly,
                prefix + dashboardTotals,
                prefix + budgetSpend);
    }
}
