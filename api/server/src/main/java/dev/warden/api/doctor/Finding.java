package dev.warden.api.doctor;

import java.util.Comparator;

/**
 * One problem the security doctor found.
 *
 * @param id     what kind of problem (its id, severity and title)
 * @param detail what was seen in this deployment; never a secret
 * @param fix    what to change, naming the configuration key
 */
public record Finding(FindingId id, String detail, String fix) {
    /** The report's order: most severe first, then by id, then by detail (one finding per sink). */
    public static final Comparator<Finding> REPORT_ORDER = Comparator.comparing((Finding f) -> f.severity())
            .thenComparing(f -> f.id().wireName())
            .thenComparing(Finding::detail);

    /** How urgent it is. */
    public Severity severity() {
        return id.severity();
    }

    /** One line saying what is wrong. */
    public String title() {
        return id.title();
    }
}
