package dev.warden.launcher;

import dev.warden.api.console.Operations;
import dev.warden.api.deadletters.DeadLetterRepository;
import dev.warden.api.doctor.Doctor;
import dev.warden.api.observe.HealthCheck;
import java.util.List;
import java.util.Optional;

/**
 * The console's health page over this process: its health checks (the list the platform fills as it wires each
 * component, read when the page is opened), the doctor's report and the dead letters.
 */
record PlatformOperations(List<HealthCheck> checks, Doctor doctor, DeadLetterRepository deadLetters)
        implements Operations {
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

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        return deadLetters.newest(Optional.empty(), limit).stream()
                .map(d -> new DeadLetter(
                        d.id(),
                        d.sink(),
                        d.topic(),
                        d.partition(),
                        d.offset(),
                        d.error(),
                        d.failedAt().toString()))
                .toList();
    }
}
