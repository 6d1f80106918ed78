package dev.warden.runtime.cache;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a process remembers of things it can always read or make again (the authorization server's verified tokens,
 * token states, clients, keys' signers and headers): a concurrent map that forgets everything once it holds its
 * bound, so that no input can grow it without end. Starting again costs some reads; nothing remembered is ever the
 * only copy.
 */
public final class BoundedCache<K, V> {
    private final ConcurrentHashMap<K, V> entries = new ConcurrentHashMap<>();
    private final int max;

    /** A cache of at most {@code max} entries. */
    public BoundedCache(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be positive");
        }
        this.max = max;
    }

    /** The value remembered for {@code key}, or null. */
    public V get(K key) {
        return entries.get(key);
    }

    /** Remembers {@code value} for {@code key}, forgetting everything else first when the cache is full. */
    public void put(K key, V value) {
        makeRoom();
        entries.put(key, value);
    }

    /** The value remembered for {@code key}, made by {@code make} (and remembered) when there is none. */
    public V computeIfAbsent(K key, Function<? super K, ? extends V> make) {
        V known = entries.get(key);
        if (known != null) {
            return known;
        }
        makeRoom();
        return entries.computeIfAbsent(key, make);
    }

    /** How many entries are remembered. */
    public int size() {
        return entries.size();
    }

    private void makeRoom() {
        if (entries.size() >= max) {
            entries.clear();
        }
    }
}
