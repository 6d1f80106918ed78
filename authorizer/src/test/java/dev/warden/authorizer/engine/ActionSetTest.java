package dev.warden.authorizer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ActionSetTest {

    @Test
    void wildcardAllowsAnyAction() {
        ActionSet any = ActionSet.of("*");

        assertThat(any.isAny()).isTrue();
        assertThat(any.allows("read")).isTrue();
        assertThat(any.allows("delete")).isTrue();
        assertThat(any.allows("*")).isTrue();
    }

    @Test
    void namedActionsAllowOnlyThoseNamesCaseSensitively() {
        ActionSet readWrite = ActionSet.of("read", "write");

        assertThat(readWrite.isAny()).isFalse();
        assertThat(readWrite.allows("read")).isTrue();
        assertThat(readWrite.allows("write")).isTrue();
        assertThat(readWrite.allows("export")).isFalse();
        assertThat(readWrite.allows("READ")).isFalse();
        assertThat(readWrite.allows("*")).isFalse();
    }

    @Test
    void wildcardAmongNamesMakesTheSetAllowEverything() {
        assertThat(ActionSet.of("read", "*").allows("export")).isTrue();
    }

    @ParameterizedTest(name = "{0} covers {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "read,write  | read        | true",
                "read,write  | write,read  | true",
                "read,write  | read,export | false",
                "read        | read,write  | false",
                "*           | read,export | true",
                "*           | *           | true",
                "read,write  | *           | false",
                "read,*      | *           | true",
                "read        | READ        | false",
            })
    void coverageTable(String source, String delegated, boolean expected) {
        ActionSet from = ActionSet.of(List.of(source.split(",")));
        ActionSet to = ActionSet.of(List.of(delegated.split(",")));

        assertThat(from.covers(to)).isEqualTo(expected);
    }

    @Test
    void namesAreDistinctAndSorted() {
        assertThat(ActionSet.of("write", "read", "write").names()).containsExactly("read", "write");
        assertThat(ActionSet.of("write", "read")).isEqualTo(ActionSet.of("read", "write"));
    }

    @Test
    void emptyOrBlankActionsAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> ActionSet.of(List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> ActionSet.of("read", " "));
    }
}
