package dev.warden.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class MemoryRateLimitStoreTest {
    final MutableClock clock = new MutableClock();
    final MemoryRateLimitStore store = new MemoryRateLimitStore(clock);
    final RateLimit threePerMinute = RateLimit.perMinute(3);

    @Test
    void admitsUpToTheLimitThenRejectsWithTheTimeUntilTheOldestLeaves() {
        assertThat(store.acquire("k", threePerMinute).remaining()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(10));
        store.acquire("k", threePerMinute);
        Decision last = store.acquire("k", threePerMinute);
        assertThat(last.allowed()).isTrue();
        assertThat(last.remaining()).isZero();

        Decision rejected = store.acquire("k", threePerMinute);

        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(50));
        assertThat(rejected.retryAfterSeconds()).isEqualTo(50);
    }

    @Test
    void theWindowSlidesOneRequestAtATime() {
        store.acquire("k", threePerMinute);
        clock.advance(Duration.ofSeconds(30));
        store.acquire("k", threePerMinute);
        store.acquire("k", threePerMinute);
        clock.advance(Duration.ofSeconds(30));

        assertThat(store.acquire("k", threePerMinute).allowed())
                .as("the first request left the window")
                .isTrue();
        assertThat(store.acquire("k", threePerMinute).allowed())
                .as("the next two are still inside")
                .isFalse();
    }

    @Test
    void rejectedRequestsAreNotCounted() {
        for (int i = 0; i < 3; i++) {
            store.acquire("k", threePerMinute);
        }
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofMillis(500));
            assertThat(store.acquire("k", threePerMinute).allowed()).isFalse();
        }
        clock.advance(Duration.ofSeconds(10));

        assertThat(store.acquire("k", threePerMinute).allowed()).isTrue();
    }

    @Test
    void keysAreCountedApart() {
        for (int i = 0; i < 3; i++) {
            store.acquire("a", threePerMinute);
        }

        assertThat(store.acquire("a", threePerMinute).allowed()).isFalse();
        assertThat(store.acquire("b", threePerMinute).allowed()).isTrue();
    }

    @Test
    void idleKeysAreSweptAfterTheirWindow() {
        for (int i = 0; i < 1000; i++) {
            store.acquire("client-" + i, threePerMinute);
        }
        assertThat(store.size()).isEqualTo(1000);

        clock.advance(Duration.ofMinutes(2));
        store.acquire("fresh", threePerMinute);

        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void concurrentCallersNeverGetMoreThanTheLimit() throws Exception {
        RateLimit fifty = RateLimit.perMinute(50);
        List<Future<Boolean>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 400; i++) {
                results.add(pool.submit(() -> store.acquire("hot", fifty).allowed()));
            }
        }
        int admitted = 0;
        for (Future<Boolean> r : results) {
            admitted += r.get() ? 1 : 0;
        }

        assertThat(admitted).isEqualTo(50);
    }
}
