package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.RepositoryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FindingIdTest {
    static List<String> ids() {
        return Arrays.stream(FindingId.values()).map(FindingId::wireName).toList();
    }

    @Test
    void theIdsAreTheDocumentedOnesNeverRenamed() {
        assertThat(ids())
                .containsExactlyInAnyOrder(
                        "anonymous-registration-on",
                        "mcp-registration-open",
                        "forwarded-headers-untrusted",
                        "bootstrap-token-weak",
                        "bootstrap-token-still-on",
                        "bootstrap-token-off",
                        "issuer-not-https",
                        "password-hash-weak",
                        "signing-key-stale",
                        "topic-replication-factor-1",
                        "webhook-secrets-unencrypted",
                        "sink-failing",
                        "sink-lagging",
                        "sink-backlog-near-retention",
                        "sink-paused",
                        "rate-limit-store-memory-multi-instance");
    }

    @Test
    void idsAreUniqueKebabCase() {
        assertThat(ids()).doesNotHaveDuplicates().allMatch(id -> id.matches("[a-z0-9]+(-[a-z0-9]+)*"));
    }

    @Test
    void docsDoctorMdListsEveryIdWithItsSeverity() throws IOException {
        String doc = Files.readString(docsDoctorMd());

        for (FindingId id : FindingId.values()) {
            assertThat(doc)
                    .as(id.wireName())
                    .contains("| `" + id.wireName() + "` | " + id.severity().wireName() + " |");
        }
    }

    /** {@code docs/doctor.md} of the repository, found from the working directory (the module or the root). */
    private static Path docsDoctorMd() {
        return RepositoryFiles.file("docs/doctor.md");
    }
}
