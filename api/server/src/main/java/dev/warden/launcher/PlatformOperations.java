package dev.warden.launcher;

import dev.warden.api.console.Operations;
import dev.warden.api.doctor.Doctor;
import dev.warden.api.observe.HealthCheck;
import java.util.List;

/**
 * The console's health page over this process: its health checks (the list the platform fills as it wires each
 * component, read when the page is opened) and the doctor's report.
 */
record PlatformOperations(List<HealthCheck> checks, Doctor doctor) implements Operations {
    @Override
    public List<Check> health() {
        return List.copyOf(checks).stream()
                .map(c -> {
                    HealthCheck.Result result = c.check();
                    return new Check(c.name(), result.status(), result.detail());
                })
                .toList();
    }

    @Override
    public List<Finding> findings() {
        return doctor.examine().findings().stream()
                .map(f -> new Finding(f.id().wireName(), f.severity().wireName(), f.detail(), f.fix()))
                .toList();
    }
}
