package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The compact permission form of the command line. */
class PermissionSpecTest {
    @Test
    void theResourceIsEverythingBeforeTheLastEqualsAndActionsAreCommaSeparated() {
        assertThat(PermissionSpec.parse("mcp:github:*=read,write"))
                .isEqualTo(Map.of("resource", "mcp:github:*", "actions", List.of("read", "write")));
        assertThat(PermissionSpec.parse("db:k=v= read , write"))
                .isEqualTo(Map.of("resource", "db:k=v", "actions", List.of("read", "write")));
    }

    @Test
    void aSpecWithoutResourceOrActionsIsRefusedWithTheFormInTheMessage() {
        for (String bad : List.of("files:*", "=read", "files:*=", "files:*=read,,write", " =read")) {
            assertThatThrownBy(() -> PermissionSpec.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> PermissionSpec.parse("files:*")).hasMessageContaining("<resource>=<action>");
    }
}
