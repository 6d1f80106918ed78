package dev.warden.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.cli.ExitCodes;
import dev.warden.cli.Output;
import dev.warden.cli.Output.Column;
import dev.warden.cli.WardenCli;
import dev.warden.client.WardenClient;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code warden doctor}: the server's security doctor (docs/doctor.md, administrator only): what weakens the
 * deployment, each finding with its fix. Exits 9 when a finding is critical.
 */
@Command(name = "doctor", description = "What weakens the deployment, with fixes (administrator). Exit 9 if critical.")
public final class DoctorCommand implements Callable<Integer> {
    static final List<Column> COLUMNS = List.of(
            Column.of("severity", "severity"),
            Column.of("id", "id"),
            Column.of("title", "title"),
            Column.of("fix", "fix"));

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        WardenCli cli = WardenCli.of(spec);
        JsonNode report;
        try (WardenClient client = cli.client()) {
            report = client.get("/admin/v1/doctor");
        }
        Output output = cli.output();
        if (output.format() == Output.Format.json) {
            output.json(report);
        } else {
            output.list(report.path("findings"), COLUMNS);
            JsonNode counts = report.path("counts");
            output.note(counts.path("critical").asInt() + " critical, "
                    + counts.path("warning").asInt() + " warning, "
                    + counts.path("info").asInt() + " info");
        }
        return report.path("counts").path("critical").asInt() > 0 ? ExitCodes.CRITICAL_FINDINGS : ExitCodes.OK;
    }
}
