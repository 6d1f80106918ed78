package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.client.RefreshTokenCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profiles file: what it keeps, who may read it, and where it lives. */
class ProfilesTest {
    @TempDir
    Path dir;

    @Test
    void profilesRoundTripTheOwnerAloneReadsThemAndASignOutKeepsTheServer() throws Exception {
        Profiles profiles = new Profiles(dir.resolve("warden"));
        RefreshTokenCredentials.Session session =
                new RefreshTokenCredentials.Session("at", Instant.parse("2026-11-28T12:00:00Z"), "rt");
        profiles.put(
                "prod",
                new Profiles.Profile(
                        "https://w.example", Optional.empty(), Optional.of("warden-cli"), Optional.of(session)),
                true);
        profiles.put(
                "dev",
                new Profiles.Profile("http://localhost:8080", Optional.of("tok"), Optional.empty(), Optional.empty()),
                false);

        assertThat(profiles.current()).isEqualTo("prod");
        assertThat(profiles.get("prod").orElseThrow().session()).contains(session);
        assertThat(profiles.get("dev").orElseThrow().method()).isEqualTo("api token");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(profiles.file())))
                .isEqualTo("rw-------");

        profiles.put("prod", profiles.get("prod").orElseThrow().signedOut(), false);
        assertThat(profiles.get("prod").orElseThrow().signedIn()).isFalse();
        assertThat(profiles.get("prod").orElseThrow().url()).isEqualTo("https://w.example");
        assertThat(Files.readString(profiles.file())).doesNotContain("\"rt\"");
        assertThat(profiles.use("nope")).isFalse();
        assertThat(profiles.use("dev")).isTrue();
        assertThat(profiles.current()).isEqualTo("dev");
    }

    @Test
    void theDirectoryComesFromWardenConfigDirThenXdgConfigHome() {
        assertThat(Profiles.directory(Map.of("WARDEN_CONFIG_DIR", "/a", "XDG_CONFIG_HOME", "/b")))
                .isEqualTo(Path.of("/a"));
        assertThat(Profiles.directory(Map.of("XDG_CONFIG_HOME", "/b"))).isEqualTo(Path.of("/b", "warden"));
    }

    @Test
    void aFileThatIsNotAnObjectIsReportedNotOverwritten() throws Exception {
        Profiles profiles = new Profiles(dir);
        Files.writeString(profiles.file(), "[1]");
        assertThatThrownBy(profiles::current).hasMessageContaining("not a JSON object");
        assertThat(Files.readString(profiles.file())).isEqualTo("[1]");
    }
}
