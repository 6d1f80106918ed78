package dev.warden.api.observe;

import java.util.function.Supplier;

/** One component's readiness, checked on every {@code GET /observe/health}. Must answer within seconds. */
public interface HealthCheck {
    /** The component's name in the health report, e.g. {@code postgres}. */
    String name();

    /** The component's current state. Never throws: failures are reported as DOWN. */
    Result check();

    /** A check named {@code name} that answers with {@code check}. */
    static HealthCheck of(String name, Supplier<Result> check) {
        return new HealthCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Result check() {
                return check.get();
            }
        };
    }

    /**
     * UP, DEGRADED (working, but something needs an operator: a sink that keeps failing or falls behind) or
     * DOWN, with a human-readable detail.
     */
    record Result(boolean up, boolean degraded, String detail) {
        public static Result up(String detail) {
            return new Result(true, false, detail);
        }

        public static Result degraded(String detail) {
            return new Result(true, true, detail);
        }

        public static Result down(String detail) {
            return new Result(false, false, detail);
        }

        /** {@code UP}, {@code DEGRADED} or {@code DOWN}. */
        public String status() {
            return !up ? "DOWN" : degraded ? "DEGRADED" : "UP";
        }
    }
}
