package dev.warden.api.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.testing.RepositoryFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openapitools.openapidiff.core.OpenApiCompare;
import org.openapitools.openapidiff.core.model.ChangedOpenApi;
import org.openapitools.openapidiff.core.output.MarkdownRender;

/**
 * Semantic versioning of the HTTP contract, checked rather than hoped for (docs/api-contract.md): the OpenAPI
 * document is compared with the one of the last release tag ({@code v<major>.<minor>.<patch>} reachable from
 * {@code HEAD}) by openapi-diff, and a breaking change fails unless {@code info.version}'s major version moved.
 */
class ContractCompatibilityTest {
    static final String DOCUMENT = "api/rest/src/main/resources/openapi/openapi.json";
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theDocumentBreaksNothingOfTheLastReleaseUnlessTheMajorVersionMoved() throws IOException {
        Path document = RepositoryFiles.file(DOCUMENT);
        Optional<String> release = lastReleaseTag(document.getParent());
        assumeTrue(release.isPresent(), "no release tag (v<major>.<minor>.<patch>) reachable from HEAD");
        String released = git(document.getParent(), "show", release.get() + ":" + DOCUMENT);
        String current = Files.readString(document);

        ChangedOpenApi diff = OpenApiCompare.fromContents(released, current);

        int releasedMajor = major(JSON.readTree(released));
        int currentMajor = major(JSON.readTree(current));
        assertThat(currentMajor)
                .as("info.version's major version never goes back")
                .isGreaterThanOrEqualTo(releasedMajor);
        if (currentMajor == releasedMajor) {
            assertThat(diff.isIncompatible())
                    .as("breaking changes since %s without a major version:%n%s", release.get(), render(diff))
                    .isFalse();
        }
    }

    /** The comparison sees what breaks a client in Warden's own 3.1 document, and passes what does not. */
    @Test
    void theComparisonTellsABreakingChangeFromAnAdditiveOne() throws IOException {
        String current = Files.readString(RepositoryFiles.file(DOCUMENT));

        ObjectNode removed = (ObjectNode) JSON.readTree(current);
        ((ObjectNode) removed.get("paths")).remove("/agents/{id}/rotate");
        assertThat(OpenApiCompare.fromContents(current, JSON.writeValueAsString(removed))
                        .isIncompatible())
                .as("a removed operation")
                .isTrue();

        ObjectNode required = (ObjectNode) JSON.readTree(current);
        ((ArrayNode) required.at("/paths/~1agents/get/parameters"))
                .addObject()
                .put("name", "owner")
                .put("in", "query")
                .put("required", true)
                .putObject("schema")
                .put("type", "string");
        assertThat(OpenApiCompare.fromContents(current, JSON.writeValueAsString(required))
                        .isIncompatible())
                .as("a new required parameter")
                .isTrue();

        ObjectNode narrowed = (ObjectNode) JSON.readTree(current);
        JsonNode statusEnum = narrowed.at("/components/schemas/AgentType/enum");
        assertThat(statusEnum.isArray()).as("an agent's type is an enum").isTrue();
        ((ArrayNode) statusEnum).remove(0);
        assertThat(OpenApiCompare.fromContents(current, JSON.writeValueAsString(narrowed))
                        .isIncompatible())
                .as("a request enum value taken away")
                .isTrue();

        ObjectNode added = (ObjectNode) JSON.readTree(current);
        ((ArrayNode) added.at("/paths/~1agents/get/parameters"))
                .addObject()
                .put("name", "nameContains")
                .put("in", "query")
                .putObject("schema")
                .put("type", "string");
        assertThat(OpenApiCompare.fromContents(current, JSON.writeValueAsString(added))
                        .isIncompatible())
                .as("a new optional parameter")
                .isFalse();
    }

    static int major(JsonNode document) {
        String version = document.at("/info/version").asText();
        assertThat(version).as("info.version").matches("\\d+\\.\\d+\\.\\d+.*");
        return Integer.parseInt(version.substring(0, version.indexOf('.')));
    }

    static Optional<String> lastReleaseTag(Path inRepository) {
        String tags = git(inRepository, "tag", "--list", "v[0-9]*", "--merged", "HEAD", "--sort=-v:refname");
        return tags.lines()
                .map(String::strip)
                .filter(t -> t.matches("v\\d+\\.\\d+\\.\\d+"))
                .findFirst();
    }

    static String git(Path directory, String... arguments) {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", directory.toString()));
        command.addAll(List.of(arguments));
        try {
            Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out;
            try (InputStream in = git.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(git.waitFor(60, TimeUnit.SECONDS)).as("git finished").isTrue();
            assertThat(git.exitValue()).as("%s: %s", command, out).isZero();
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String render(ChangedOpenApi diff) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStreamWriter writer = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            new MarkdownRender().render(diff, writer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
