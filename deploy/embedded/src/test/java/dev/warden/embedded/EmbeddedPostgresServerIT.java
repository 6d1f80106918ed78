package dev.warden.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.testing.SharedInfra;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL runs the major version of docker-compose.yml and deploy/k8s, keeps its data
 * across a restart, and refuses, with a message naming both versions, a data directory of another major.
 */
class EmbeddedPostgresServerIT {
    static final Path DIR = SharedInfra.worldTraversableTempDir();

    @AfterAll
    static void cleanUp() {
        SharedInfra.deleteTree(DIR);
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("docker-compose.yml"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    @Test
    void runsTheComposeMajorVersionKeepsDataAndRefusesAnotherMajorsDirectory() throws Exception {
        Path home = DIR.resolve("postgres");
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(home);
                Connection c = DriverManager.getConnection(pg.jdbcUrl());
                Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SHOW server_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).startsWith(EmbeddedPostgresServer.MAJOR_VERSION + ".");
            }
            st.execute("CREATE TABLE kept (v text)");
            st.execute("INSERT INTO kept VALUES ('before restart')");
        }
        assertThat(Files.readString(repositoryRoot().resolve("docker-compose.yml")))
                .as("docker-compose.yml names the same PostgreSQL major")
                .contains("image: postgres:" + EmbeddedPostgresServer.MAJOR_VERSION + "\n");

        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(home);
                Connection c = DriverManager.getConnection(pg.jdbcUrl());
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT v FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("before restart");
        }

        Files.writeString(home.resolve("data/PG_VERSION"), "14\n");
        assertThatThrownBy(() -> EmbeddedPostgresServer.start(home))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PostgreSQL 14")
                .hasMessageContaining("embeds PostgreSQL " + EmbeddedPostgresServer.MAJOR_VERSION);
    }
}
