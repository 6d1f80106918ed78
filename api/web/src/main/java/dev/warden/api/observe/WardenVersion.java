package dev.warden.api.observe;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version of this build ({@code project.version}, written into {@code version.properties} by Maven). */
public final class WardenVersion {
    private static final String VALUE = load();

    private WardenVersion() {}

    /** This build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        return VALUE;
    }

    private static String load() {
        try (InputStream in = WardenVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the jar");
            }
            Properties p = new Properties();
            p.load(in);
            String version = p.getProperty("version", "");
            if (version.isBlank() || version.startsWith("${")) {
                throw new IllegalStateException("version.properties was not filtered by the build");
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
