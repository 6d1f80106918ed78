package dev.warden.api.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The process's meter registry (Micrometer, exposed in Prometheus' text format at {@code /observe/metrics}), with
 * the JVM's own meters bound (memory, GC, threads, class loading, CPU, uptime) and {@code warden_build_info}. Every other meter of Warden is
 * registered here by the component that owns it (docs/operations.md lists them). Labels never carry ids, so the
 * number of series stays bounded. Closing it stops the GC listeners.
 */
public final class Metrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final JvmHeapPressureMetrics heapPressure = new JvmHeapPressureMetrics();

    /** A registry with the JVM's meters bound. */
    public Metrics() {
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        heapPressure.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // warden_build_info{version}: 1, for dashboards and alerts that join on the running version.
        io.micrometer.core.instrument.Gauge.builder("warden.build.info", () -> 1)
                .description("The running build: always 1, its version in the label.")
                .tag("version", WardenVersion.current())
                .register(registry);
    }

    /** Where components register their meters. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Every meter in Prometheus' text exposition format (0.0.4). */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        heapPressure.close();
        registry.close();
    }
}
