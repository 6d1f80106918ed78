package dev.warden.api.observe;

import java.util.Locale;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/** The log format of the process: {@code text} (the default, one line per record) or {@code json}. */
public final class Logs {
    /** The logger of the access log ({@link HttpObservation}). */
    public static final String ACCESS_LOGGER = "warden.access";

    private Logs() {}

    /**
     * Applies {@code format} to every handler of the root logger.
     *
     * @throws IllegalArgumentException for a format other than {@code text} or {@code json}
     */
    public static void configure(String format) {
        switch (format.toLowerCase(Locale.ROOT)) {
            case "text" -> {}
            case "json" -> {
                for (Handler handler : LogManager.getLogManager().getLogger("").getHandlers()) {
                    handler.setFormatter(new JsonLogFormatter());
                }
            }
            default -> throw new IllegalArgumentException("warden.log.format must be text or json, not " + format);
        }
    }

    /** The access log's logger. */
    static Logger access() {
        return Logger.getLogger(ACCESS_LOGGER);
    }
}
