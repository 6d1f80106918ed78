package dev.warden.api.console;

import java.util.List;

/**
 * What the health page shows the administrator, supplied by the process that wires the console: its health checks
 * and the doctor's findings, each read when the page is opened.
 */
public interface Operations {
    /** One health check: its name, {@code UP}, {@code DEGRADED} or {@code DOWN}, and what it says. */
    record Check(String name, String status, String detail) {}

    /** One finding of the doctor: its id, severity, what it found and how to fix it. */
    record Finding(String id, String severity, String detail, String fix) {}

    /** Every health check of this process, now. */
    List<Check> health();

    /** The doctor's findings, now, most severe first. */
    List<Finding> findings();
}
