package dev.warden.api;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a start has opened so far, closed in the reverse order: a start that fails half-way closes what it opened
 * and leaves nothing running. Not thread-safe: one start (or one close) at a time.
 */
public final class Resources implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Resources.class.getName());

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /** Keeps {@code resource} to close; returns it. */
    public <T extends AutoCloseable> T add(T resource) {
        opened.push(resource);
        return resource;
    }

    /** Closes everything kept, newest first; a failure is logged and the rest still close. */
    @Override
    public void close() {
        while (!opened.isEmpty()) {
            AutoCloseable resource = opened.pop();
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "error while stopping " + resource, e);
            }
        }
    }
}
