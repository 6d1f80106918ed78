package dev.warden.cli.commands;

import dev.warden.cli.Output;
import dev.warden.cli.WardenCli;
import dev.warden.client.EventStream;
import dev.warden.client.StreamEvent;
import dev.warden.client.WardenClient;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code warden events tail}: follows the live event stream, one line an event, until interrupted. A dropped
 * connection is resumed from the last event printed (Last-Event-ID), with a note on standard error, so nothing
 * is missed or printed twice; {@code --after} resumes an earlier run.
 */
@Command(name = "events", description = "Follow the live event stream.")
public final class EventsCommand {
    @Spec
    CommandSpec spec;

    @Command(name = "tail", description = "Print events as they happen (Ctrl-C stops); resumes after a drop.")
    int tail(
            @Option(
                            names = {"-t", "--type"},
                            description = "Only these types (repeatable), like agent.revoked.")
                    List<String> types,
            @Option(names = "--after", paramLabel = "EVENT_ID", description = "Resume after this event id.")
                    String after,
            @Option(
                            names = {"-n", "--count"},
                            description = "Stop after this many events.")
                    Integer count) {
        WardenCli cli = WardenCli.of(spec);
        Output output = cli.output();
        EventStream.Options options = EventStream.Options.all()
                .withTypes(types == null ? List.of() : types)
                .onReconnect(reason -> output.note("warden: " + reason));
        if (after != null) {
            options = options.after(after);
        }
        int printed = 0;
        try (WardenClient client = cli.client();
                EventStream stream = client.events(options)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stream::close));
            output.note("Following the event stream" + (types == null ? "" : " (" + String.join(", ", types) + ")")
                    + "; Ctrl-C stops.");
            while ((count == null || printed < count) && stream.hasNext()) {
                StreamEvent event = stream.next();
                if (output.format() == Output.Format.json) {
                    output.json(event.data());
                } else {
                    output.out()
                            .println(event.data().path("timestamp").asText("-") + "  "
                                    + event.id().orElse("-") + "  " + event.type() + "  " + summary(event));
                    output.out().flush();
                }
                printed++;
            }
        }
        return 0;
    }

    /** The event's subject in a few words: the agent and user it concerns, and a decision's outcome. */
    private static String summary(StreamEvent event) {
        StringBuilder b = new StringBuilder();
        String agent = event.data().path("agentId").asText("");
        String user = event.data().path("userId").asText("");
        if (!agent.isEmpty()) {
            b.append("agent=").append(agent).append(' ');
        }
        if (!user.isEmpty()) {
            b.append("user=").append(user).append(' ');
        }
        var entry = event.data().path("data").path("entry");
        if (entry.isObject()) {
            b.append(entry.path("result").asText())
                    .append(' ')
                    .append(entry.path("action").asText())
                    .append(' ')
                    .append(entry.path("resource").asText());
        }
        return b.toString().strip();
    }
}
