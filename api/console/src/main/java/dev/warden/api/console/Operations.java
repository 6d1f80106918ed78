package dev.warden.api.console;

import java.util.List;

/**
 * What the health page shows the administrator, supplied by the process that wires the console: its health checks,
 * the doctor's findings and the newest dead letters, each read when the page is opened.
 */
public interface Operations {
    /** One health check: its name, {@code UP}, {@code DEGRADED} or {@code DOWN}, and what it says. */
    record Check(String name, String status, String detail) {}

    /** One finding of the doctor: its id, severity, what it found and how to fix it. */
    record Finding(String id, String severity, String detail, String fix) {}

    /** A record a sink refused for good: where it was and why (its bytes stay in {@code GET /admin/v1/dead-letters}). */
    record DeadLetter(long id, String sink, String topic, int partition, long offset, String error, String failedAt) {}

    /** Every health check of this process, now. */
    List<Check> health();

    /** The doctor's findings, now, most severe first. */
    List<Finding> findings();

    /** The newest dead letters of every sink, newest first, at most {@code limit}. */
    List<DeadLetter> deadLetters(int limit);
}
