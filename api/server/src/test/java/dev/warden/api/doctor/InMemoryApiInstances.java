package dev.warden.api.doctor;

import dev.warden.runtime.db.DatabaseException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** An {@link ApiInstanceRepository} in memory, which can be made to fail like a database that is down. */
final class InMemoryApiInstances implements ApiInstanceRepository {
    final Map<String, Instant> seen = new ConcurrentHashMap<>();
    volatile boolean down;

    @Override
    public void beat(String instanceId, String roles, Instant at) {
        failWhenDown();
        seen.put(instanceId, at);
    }

    @Override
    public void forgetBefore(Instant before) {
        failWhenDown();
        seen.values().removeIf(at -> at.isBefore(before));
    }

    @Override
    public long seenSince(Instant since) {
        failWhenDown();
        return seen.values().stream().filter(at -> !at.isBefore(since)).count();
    }

    private void failWhenDown() {
        if (down) {
            throw new DatabaseException(new SQLTransientConnectionException("connection refused", "08001"));
        }
    }
}
