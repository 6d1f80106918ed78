package dev.warden.api.doctor;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One examination by the security doctor.
 *
 * @param generatedAt when it was made
 * @param findings    every problem found, in {@link Finding#REPORT_ORDER}; empty for a healthy deployment
 */
public record Report(Instant generatedAt, List<Finding> findings) {
    public Report {
        findings = findings.stream().sorted(Finding.REPORT_ORDER).toList();
    }

    /** How many findings there are of each severity, every severity present (zero when none). */
    public Map<Severity, Long> counts() {
        Map<Severity, Long> counts = new EnumMap<>(Severity.class);
        for (Severity severity : Severity.values()) {
            counts.put(
                    severity,
                    findings.stream().filter(f -> f.severity() == severity).count());
        }
        return counts;
    }
}
