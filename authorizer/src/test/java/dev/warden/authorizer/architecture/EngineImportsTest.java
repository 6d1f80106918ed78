package dev.warden.authorizer.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The permission engine and the domain stay pure (ARCHITECTURE: Modules): their sources import nothing but
 * the JDK and each other — no Kafka, Helidon, JDBC or any other library.
 */
class EngineImportsTest {
    private static final Path SOURCES = Path.of("src/main/java/dev/warden/authorizer");
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+)", Pattern.MULTILINE);
    /**
     * The JDK, each other, and one interface of the wire contract: {@code WireEnum}, which imports only the JDK and
     * names the stable wire form the domain's enums share with every record on the wire.
     */
    private static final List<String> ALLOWED = List.of(
            "java.",
            "dev.warden.authorizer.domain.",
            "dev.warden.authorizer.engine.",
            "dev.warden.pipeline.contract.WireEnum");
    /** JDK packages that mean I/O or JDBC, which the engine must not touch. */
    private static final List<String> FORBIDDEN = List.of("java.sql.", "javax.sql.", "java.net.", "java.nio.channels.");

    @Test
    void engineAndDomainImportOnlyTheJdkAndEachOther() throws IOException {
        List<Path> files = javaFiles("engine", "domain");
        assertThat(files).as("engine and domain sources").isNotEmpty();
        for (Path file : files) {
            Matcher m = IMPORT.matcher(Files.readString(file));
            while (m.find()) {
                String imported = m.group(1);
                assertThat(isAllowed(imported))
                        .as("%s imports %s", file, imported)
                        .isTrue();
            }
        }
    }

    @Test
    void theCheckCatchesAForbiddenImport() {
        Matcher m = IMPORT.matcher(
                "package x;\nimport org.apache.kafka.streams.KafkaStreams;\nimport java.sql.Connection;\n");
        assertThat(m.find()).isTrue();
        assertThat(isAllowed(m.group(1))).isFalse();
        assertThat(m.find()).isTrue();
        assertThat(isAllowed(m.group(1)))
                .as("JDBC is part of the JDK but forbidden")
                .isFalse();
        assertThat(isAllowed("java.util.List")).isTrue();
        assertThat(isAllowed("dev.warden.pipeline.contract.Json"))
                .as("only WireEnum of the contract")
                .isFalse();
    }

    private static boolean isAllowed(String imported) {
        return ALLOWED.stream().anyMatch(imported::startsWith)
                && FORBIDDEN.stream().noneMatch(imported::startsWith);
    }

    private static List<Path> javaFiles(String... packages) throws IOException {
        List<Path> files = new java.util.ArrayList<>();
        for (String pkg : packages) {
            Path dir = SOURCES.resolve(pkg);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
                }
            }
        }
        return files;
    }
}
