package dev.warden.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A bounded cache holds at most its bound, whatever is put in it. */
class BoundedCacheTest {
    @Test
    void itForgetsEverythingOnceFullAndNeverHoldsMoreThanItsBound() {
        BoundedCache<String, Integer> cache = new BoundedCache<>(3);
        cache.put("a", 1);
        cache.put("b", 2);
        cache.put("c", 3);
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.get("a")).isEqualTo(1);
        cache.put("d", 4);
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("d")).isEqualTo(4);
        for (int i = 0; i < 1_000; i++) {
            cache.computeIfAbsent("k" + i, k -> 0);
            assertThat(cache.size()).isLessThanOrEqualTo(3);
        }
    }

    @Test
    void computeIfAbsentMakesOnceAndKeeps() {
        BoundedCache<String, Integer> cache = new BoundedCache<>(10);
        int[] made = {0};
        assertThat(cache.computeIfAbsent("a", k -> ++made[0])).isEqualTo(1);
        assertThat(cache.computeIfAbsent("a", k -> ++made[0])).isEqualTo(1);
        assertThat(made[0]).isEqualTo(1);
        assertThatThrownBy(() -> new BoundedCache<String, Integer>(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
