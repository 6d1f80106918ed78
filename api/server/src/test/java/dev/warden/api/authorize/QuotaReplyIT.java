package dev.warden.api.authorize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.launcher.roles.QuotaRole;
import dev.warden.testing.Http;
import dev.warden.testing.SharedInfra;
import dev.warden.testing.TestPlatform;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A quota reply is committed in the quota application's loop turn that made it, not at its next
 * commit interval: with a 9 s interval (under the transaction timeout), quota-limited decisions 200 ms apart are each
 * answered within a second, and so is every call of a burst, counted exactly (D193).
 */
class QuotaReplyIT {
    @RegisterExtension
    static final TestPlatform platform = new TestPlatform(b -> b.roles("api"));

    static QuotaRole quota;
    static Path quotaState;

    @BeforeAll
    static void startAQuotaRoleThatCommitsEveryNineSeconds() {
        quotaState = SharedInfra.worldTraversableTempDir();
        quota = MultiInstanceIT.startQuota(
                platform, b -> b.streamsStateDir(quotaState.toString()).streamsCommitIntervalMs(9_000));
    }

    @AfterAll
    static void stop() {
        quota.close();
        SharedInfra.deleteTree(quotaState);
    }

    @Test
    void eachQuotaLimitedDecisionIsAnsweredWithoutWaitingForTheCommitInterval() throws Exception {
        String agent = agent(100);
        for (int i = 1; i <= 5; i++) {
            Answer answer = ask(agent);
            assertThat(answer.allowed()).as("call %d", i).isTrue();
            assertThat(answer.took()).as("call %d answered", i).isLessThan(Duration.ofSeconds(1));
            Thread.sleep(200);
        }
    }

    @Test
    void aBurstIsAnsweredWithoutWaitingForTheCommitIntervalAndCountedExactly() throws Exception {
        String agent = agent(30);
        List<Future<Answer>> calls = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(40)) {
            for (int i = 0; i < 40; i++) {
                calls.add(pool.submit(() -> ask(agent)));
            }
        }
        int allowed = 0;
        for (Future<Answer> call : calls) {
            Answer answer = call.get();
            assertThat(answer.took()).as("every call of the burst answered").isLessThan(Duration.ofSeconds(2));
            allowed += answer.allowed() ? 1 : 0;
        }
        assertThat(allowed).as("the limit, exactly").isEqualTo(30);
    }

    private record Answer(boolean allowed, Duration took) {}

    private static String agent(int limit) {
        Http.Response created = platform.http()
                .post(
                        "/agents",
                        platform.adminToken(),
                        "{\"ownerId\":\"quinn\",\"name\":\"q\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"mcp:search:*\",\"actions\":[\"query\"],"
                                + "\"constraints\":{\"maxCallsPerHour\":" + limit + "}}]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().get("id").asText();
    }

    private static Answer ask(String agent) {
        long started = System.nanoTime();
        Http.Response res = platform.http()
                .post(
                        "/authorize",
                        platform.adminToken(),
                        "{\"agentId\":\"" + agent + "\",\"action\":\"query\",\"resource\":\"mcp:search:web\"}");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return new Answer(res.json().get("allowed").asBoolean(), took);
    }
}
