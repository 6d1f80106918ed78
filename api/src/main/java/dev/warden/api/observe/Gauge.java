package dev.warden.api.observe;

import java.util.function.LongSupplier;

/** A value of this process that goes up and down, shown on {@code /observe/metrics} as a Prometheus gauge. */
public record Gauge(String name, String help, LongSupplier value) {
}
