package dev.warden.api.doctor;

import java.time.Instant;

/** Where the heartbeats of API instances are kept, so that any instance can tell how many are running. */
public interface ApiInstanceRepository {
    /** Records that instance {@code instanceId}, running {@code roles}, was alive at {@code at}. */
    void beat(String instanceId, String roles, Instant at);

    /** Forgets instances last seen before {@code before} (stopped processes, whose ids are not reused). */
    void forgetBefore(Instant before);

    /** How many instances were seen at or after {@code since}. */
    long seenSince(Instant since);
}
