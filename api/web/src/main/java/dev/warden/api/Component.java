package dev.warden.api;

import dev.warden.api.observe.HealthCheck;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * One part of a process as the launcher wires it: the routes it serves, the health checks and meters it reports,
 * and what it stops. The launcher knows components through this interface only; what a component is built from
 * stays with the component ({@code UsersComponent.create}, {@code OAuthServer}, {@code RestApi.start}, ...).
 */
public interface Component extends AutoCloseable {

    /** Its routes, each under its path prefix; served by processes that run the API role. */
    default List<WardenApi.Mount> mounts() {
        return List.of();
    }

    /** Its readiness, reported on {@code GET /observe/health}. */
    default List<HealthCheck> healthChecks() {
        return List.of();
    }

    /** Registers the gauges and counters over its state on {@code registry}; called once, after it is built. */
    default void bindMeters(MeterRegistry registry) {}

    /** Stops what it started; the launcher closes components in the reverse order of their creation. */
    @Override
    default void close() {}
}
