package dev.warden.api.config;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.config.spi.ConfigSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Loads Warden's configuration. Highest priority first: JVM system properties ({@code -Dwarden.server.port=9090}),
 * environment variables {@code WARDEN_*}, the file given with {@code --config}, then the built-in
 * {@code warden-defaults.yaml}.
 *
 * <p>Environment variable names map to keys by lower-casing, reading {@code __} as {@code -} and {@code _}
 * as {@code .}: {@code WARDEN_KAFKA_BOOTSTRAP} is {@code warden.kafka.bootstrap} and
 * {@code WARDEN_SERVER_MAX__BODY__BYTES} is {@code warden.server.max-body-bytes}.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    /** Loads from the process environment and system properties, plus {@code file} when given. */
    public static Config load(Optional<Path> file) {
        return load(file, System.getenv());
    }

    /** Loads with an explicit environment (tests). */
    public static Config load(Optional<Path> file, Map<String, String> env) {
        List<Supplier<? extends ConfigSource>> sources = new ArrayList<>();
        sources.add(ConfigSources.systemProperties());
        sources.add(ConfigSources.create(fromEnvironment(env)));
        file.ifPresent(f -> sources.add(ConfigSources.file(f)));
        sources.add(ConfigSources.classpath("warden-defaults.yaml").optional());
        return Config.builder()
                .disableEnvironmentVariablesSource()
                .disableSystemPropertiesSource()
                .sources(sources)
                .build();
    }

    /** The {@code WARDEN_*} variables of {@code env} as config keys. */
    public static Map<String, String> fromEnvironment(Map<String, String> env) {
        Map<String, String> keys = new HashMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith("WARDEN_") && !name.endsWith("_")) {
                keys.put(keyOf(name), value);
            }
        });
        return keys;
    }

    static String keyOf(String envName) {
        return envName.toLowerCase(Locale.ROOT).replace("__", "-").replace('_', '.');
    }
}
