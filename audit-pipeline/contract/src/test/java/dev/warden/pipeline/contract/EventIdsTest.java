package dev.warden.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventIdsTest {
    @Test
    void idsRoundTripThroughPositions() {
        for (String id : new String[] {"0", "41", "7.0", "7.999", "123456789012.5", "-1"}) {
            assertThat(EventIds.id(EventIds.parse(id).orElseThrow())).isEqualTo(id);
        }
    }

    @Test
    void positionsFollowTheTopicThenTheBatch() {
        long six = EventIds.parse("6").orElseThrow();
        long sevenFirst = EventIds.parse("7.0").orElseThrow();
        long sevenLast = EventIds.parse("7.999").orElseThrow();
        long seven = EventIds.parse("7").orElseThrow();
        long eight = EventIds.parse("8.0").orElseThrow();

        assertThat(EventIds.BEFORE_ALL).isLessThan(EventIds.parse("0.0").orElseThrow());
        assertThat(six).isLessThan(sevenFirst);
        assertThat(sevenFirst).isLessThan(sevenLast);
        // "7" as a cursor (an id from before batches, or an ordinary event) means after all of offset 7.
        assertThat(sevenLast).isLessThan(seven);
        assertThat(seven).isLessThan(eight);
        assertThat(EventIds.offset(sevenLast)).isEqualTo(7);
        assertThat(EventIds.record(7)).isEqualTo(seven);
    }

    @Test
    void anythingElseIsNotAnId() {
        for (String id : new String[] {
            "",
            "x",
            "1.",
            ".1",
            "1.x",
            "1.01",
            "1.+1",
            "1.1023",
            "1.-1",
            "-2",
            "-1.0",
            "1.2.3",
            "99999999999999999999",
            "9223372036854775807",
            "1e3"
        }) {
            assertThat(EventIds.parse(id)).as(id).isEmpty();
        }
    }
}
