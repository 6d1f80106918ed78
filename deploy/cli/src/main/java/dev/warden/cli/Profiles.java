package dev.warden.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.client.RefreshTokenCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The servers {@code warden} knows, each under a name (a profile), and which one is current: kept in
 * {@code profiles.json} of the configuration directory ({@code $WARDEN_CONFIG_DIR}, else
 * {@code $XDG_CONFIG_HOME/warden}, else {@code ~/.config/warden}), readable by its owner only, because it holds
 * credentials: an API token, or a device sign-in (its refresh token and current access token). Written whole to a temporary file and moved
 * into place, so a crash never leaves half a file.
 */
public final class Profiles {
    /** One server and how to act on it. */
    public record Profile(
            String url,
            Optional<String> token,
            Optional<String> clientId,
            Optional<RefreshTokenCredentials.Session> session) {
        /** True when the profile holds a credential. */
        public boolean signedIn() {
            return token.isPresent() || session.isPresent();
        }

        /** The same server without credentials. */
        public Profile signedOut() {
            return new Profile(url, Optional.empty(), Optional.empty(), Optional.empty());
        }

        /** How the profile signs in, for people. */
        public String method() {
            if (token.isPresent()) {
                return "api token";
            }
            return session.isPresent() ? "device sign-in" : "signed out";
        }
    }

    /** The name of the profile used when none was ever chosen. */
    public static final String DEFAULT = "default";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;

    public Profiles(Path directory) {
        this.file = directory.resolve("profiles.json");
    }

    /** The configuration directory from the environment (see the class comment). */
    public static Path directory(Map<String, String> env) {
        String own = env.get("WARDEN_CONFIG_DIR");
        if (own != null && !own.isBlank()) {
            return Path.of(own);
        }
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "warden");
        }
        return Path.of(System.getProperty("user.home"), ".config", "warden");
    }

    public Path file() {
        return file;
    }

    /** Every profile by name. */
    public synchronized Map<String, Profile> all() {
        Map<String, Profile> all = new TreeMap<>();
        read().path("profiles").fields().forEachRemaining(e -> all.put(e.getKey(), profile(e.getValue())));
        return all;
    }

    /** The name of the current profile. */
    public synchronized String current() {
        return read().path("current").asText(DEFAULT);
    }

    /** The profile {@code name}, if there is one. */
    public synchronized Optional<Profile> get(String name) {
        JsonNode node = read().path("profiles").path(name);
        return node.isObject() ? Optional.of(profile(node)) : Optional.empty();
    }

    /** Stores {@code profile} as {@code name}, and makes it current when {@code makeCurrent}. */
    public synchronized void put(String name, Profile profile, boolean makeCurrent) {
        ObjectNode root = (ObjectNode) read();
        ObjectNode node = root.with("profiles").putObject(name);
        node.put("url", profile.url());
        profile.token().ifPresent(t -> node.put("token", t));
        profile.clientId().ifPresent(c -> node.put("clientId", c));
        profile.session().ifPresent(session -> {
            node.put("refreshToken", session.refreshToken());
            node.put("accessToken", session.accessToken());
            node.put("accessTokenExpiresAt", session.expiresAt().toString());
        });
        if (makeCurrent) {
            root.put("current", name);
        }
        write(root);
    }

    /** Makes {@code name} current; false when there is no such profile. */
    public synchronized boolean use(String name) {
        ObjectNode root = (ObjectNode) read();
        if (!root.path("profiles").has(name)) {
            return false;
        }
        root.put("current", name);
        write(root);
        return true;
    }

    private static Profile profile(JsonNode node) {
        return new Profile(
                node.path("url").asText(),
                text(node, "token"),
                text(node, "clientId"),
                text(node, "refreshToken")
                        .map(refresh -> new RefreshTokenCredentials.Session(
                                node.path("accessToken").asText(""), expiry(node), refresh)));
    }

    /** When the kept access token expires (the epoch when unknown: renewed before use). */
    private static Instant expiry(JsonNode node) {
        try {
            return Instant.parse(node.path("accessTokenExpiresAt").asText(""));
        } catch (java.time.format.DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    private static Optional<String> text(JsonNode node, String field) {
        return Optional.ofNullable(node.path(field).textValue());
    }

    private JsonNode read() {
        if (!Files.exists(file)) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode root = JSON.readTree(file.toFile());
            if (root == null || !root.isObject()) {
                throw new IllegalStateException(file + " is not a JSON object: fix or delete it");
            }
            return root;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private void write(JsonNode root) {
        try {
            Path dir = file.getParent();
            Files.createDirectories(dir);
            Path temp = dir.resolve("profiles.json.tmp");
            Files.deleteIfExists(temp);
            try {
                Files.createFile(
                        temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(temp); // not a POSIX file system: the directory's own permissions apply
            } catch (FileAlreadyExistsException e) {
                throw new IllegalStateException("another warden is writing " + file, e);
            }
            Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
