package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.warden.testing.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ApiHeartbeatTest {
    final MutableClock clock = new MutableClock();
    final InMemoryApiInstances instances = new InMemoryApiInstances();

    ApiHeartbeat heartbeat(String instanceId) {
        return new ApiHeartbeat(instances, instanceId, "api", clock);
    }

    @Test
    void instancesSeenWithinTheLastMinuteAreCountedAndSilentOnesAreNot() {
        ApiHeartbeat first = heartbeat("a");
        ApiHeartbeat second = heartbeat("b");
        first.beat();
        second.beat();
        assertThat(first.liveInstances()).isEqualTo(2);

        clock.advance(Duration.ofSeconds(45));
        first.beat();
        clock.advance(Duration.ofSeconds(30));

        assertThat(first.liveInstances()).isEqualTo(1);
    }

    @Test
    void instancesSilentForADayAreForgotten() {
        heartbeat("gone").beat();
        clock.advance(ApiHeartbeat.FORGET_AFTER.plusSeconds(1));

        heartbeat("here").beat();

        assertThat(instances.seen).containsOnlyKeys("here");
    }

    @Test
    void aBeatWhileTheDatabaseIsDownDoesNotThrowAndTheNextBeatRecordsAgain() {
        ApiHeartbeat heartbeat = heartbeat("a");
        instances.down = true;

        assertThatCode(heartbeat::beat).doesNotThrowAnyException();
        assertThatCode(heartbeat::beat).doesNotThrowAnyException();

        instances.down = false;
        heartbeat.beat();
        assertThat(heartbeat.liveInstances()).isEqualTo(1);
    }

    @Test
    void aStartedHeartbeatBeatsAtOnce() throws InterruptedException {
        try (ApiHeartbeat heartbeat = ApiHeartbeat.start(instances, "a", "api", clock)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (instances.seen.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(heartbeat.liveInstances()).isEqualTo(1);
        }
    }
}
