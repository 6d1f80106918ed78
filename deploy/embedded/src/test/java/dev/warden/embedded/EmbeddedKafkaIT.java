package dev.warden.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.SharedInfra;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The in-process broker of `warden dev` runs with the settings it is given for a small, shared machine (D199). */
class EmbeddedKafkaIT {
    static final Path DIR = SharedInfra.worldTraversableTempDir();

    @AfterAll
    static void cleanUp() {
        SharedInfra.deleteTree(DIR);
    }

    @Test
    void theLogCleanersDedupeMapIsSmallNotKafkasDefaultOf128MiBOnTheHeap() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(DIR.resolve("kafka"));
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);

            assertThat(Long.parseLong(
                            config.get("log.cleaner.dedupe.buffer.size").value()))
                    .isEqualTo(EmbeddedKafka.DEDUPE_BUFFER_BYTES)
                    .isEqualTo(8L * 1024 * 1024);
            assertThat(Integer.parseInt(config.get("log.cleaner.threads").value()))
                    .as("one cleaner thread holds the whole map")
                    .isEqualTo(1);
        }
    }
}
