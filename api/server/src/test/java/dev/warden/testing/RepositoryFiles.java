package dev.warden.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Files of the repository that tests check the code against (docs, deploy files), whatever module runs them. */
public final class RepositoryFiles {
    private RepositoryFiles() {}

    /**
     * {@code relative} (e.g. {@code docs/doctor.md}) in the repository, found upwards from the working directory.
     *
     * @throws IllegalStateException when no directory above holds it
     */
    public static Path file(String relative) {
        Path here = Path.of("").toAbsolutePath();
        return Stream.iterate(here, p -> p != null, Path::getParent)
                .map(p -> p.resolve(relative))
                .filter(Files::exists)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(relative + " is in no directory above " + here));
    }
}
