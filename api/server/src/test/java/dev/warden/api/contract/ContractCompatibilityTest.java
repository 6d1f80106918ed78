package dev.warden.api.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.testing.RepositoryFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.openapitools.openapidiff.core.OpenApiCompare;
import org.openapitools.openapidiff.core.model.ChangedOpenApi;
import org.openapitools.openapidiff.core.output.MarkdownRender;

/**
 * Semantic versioning of the HTTP contract, checked rather than hoped for (docs/api-contract.md): the OpenAPI
 * document is compared with the last release's, kept in the repository ({@value #RELEASED}{@code
 * openapi-v<major>.<minor>.<patch>.json}, the newest version), by openapi-diff, and a breaking change fails unless
 * {@code info.version}'s major version moved. The released documents are files, not tags, so that every clone, with
 * or without tags, runs the comparison.
 */
class ContractCompatibilityTest {
    static final String DOCUMENT = "api/rest/src/main/resources/openapi/openapi.json";
    static final String RELEASED = "api/server/src/test/resources/contract/released/";
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theDocumentBreaksNothingOfTheLastReleaseUnlessTheMajorVersionMoved() throws IOException {
        Path document = RepositoryFiles.file(DOCUMENT);
        Path release = lastRelease(RepositoryFiles.file(RELEASED));
        String released = Files.readString(release);
        String current = Files.readString(document);

        ChangedOpenApi diff = OpenApiCompare.fromContents(released, current);

        int releasedMajor = major(JSON.readTree(released));
        int currentMajor = major(JSON.readTree(current));
        assertThat(currentMajor)
                .as("info.version's major version never goes back")
                .isGreaterThanOrEqualTo(releasedMajor);
        if (currentMajor == releasedMajor) {
            assertThat(diff.isIncompatible())
                    .as("breaking changes since %s without a major version:%n%s", release.getFileName(), render(diff))
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

    /** The released document of the highest version in {@code directory}. */
    static Path lastRelease(Path directory) throws IOException {
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("openapi-v(\\d+)\\.(\\d+)\\.(\\d+)\\.json");
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> name.matcher(f.getFileName().toString()).matches())
                    .max(java.util.Comparator.comparing(f -> {
                        java.util.regex.Matcher m = name.matcher(f.getFileName().toString());
                        m.matches();
                        return Integer.parseInt(m.group(1)) * 1_000_000L
                                + Integer.parseInt(m.group(2)) * 1_000L
                                + Integer.parseInt(m.group(3));
                    }))
                    .orElseThrow(() -> new AssertionError("no released document in " + directory));
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
