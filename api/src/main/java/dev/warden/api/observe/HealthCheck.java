package dev.warden.api.observe;

/** One component's readiness, checked on every {@code GET /observe/health}. Must answer within seconds. */
public interface HealthCheck {
    /** The component's name in the health report, e.g. {@code postgres}. */
    String name();

    /** The component's current state. Never throws: failures are reported as DOWN. */
    Result check();

    /** UP or DOWN with a human-readable detail. */
    record Result(boolean up, String detail) {
        public static Result up(String detail) {
            return new Result(true, detail);
        }

        public static Result down(String detail) {
            return new Result(false, detail);
        }
    }
}
