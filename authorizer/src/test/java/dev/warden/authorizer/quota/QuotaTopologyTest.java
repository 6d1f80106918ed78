package dev.warden.authorizer.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QuotaTopologyTest {
    private TopologyTestDriver driver;
    private TestInputTopic<String, QuotaRequest> requests;
    private TestOutputTopic<String, QuotaReply> replies;
    private int sequence;

    @BeforeEach
    void setUp() {
        StreamsBuilder builder = new StreamsBuilder();
        QuotaTopology.build(builder, "requests", "replies");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "quota-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        requests = driver.createInputTopic(
                "requests", Serdes.String().serializer(), QuotaSerdes.requests().serializer());
        replies = driver.createOutputTopic(
                "replies", Serdes.String().deserializer(), QuotaSerdes.replies().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private QuotaReply ask(long hour, QuotaRequest.Step... steps) {
        String id = "r" + (++sequence);
        requests.pipeInput("agt_root", new QuotaRequest(id, "api-1", hour, List.of(steps)));
        var reply = replies.readKeyValue();
        assertThat(reply.key).isEqualTo("api-1");
        assertThat(reply.value.requestId()).isEqualTo(id);
        return reply.value;
    }

    @Test
    void grantsExactlyTheLimitThenRefusesWithoutCounting() {
        QuotaRequest.Step step = new QuotaRequest.Step("agent:a|read|x:*", 3);
        assertThat(ask(10, step).remaining()).isEqualTo(2);
        assertThat(ask(10, step).granted()).isTrue();
        assertThat(ask(10, step).remaining()).isZero();
        QuotaReply refused = ask(10, step);
        assertThat(refused.granted()).isFalse();
        assertThat(refused.exhaustedCounter()).isEqualTo("agent:a|read|x:*");
        assertThat(driver.<String, Long>getKeyValueStore(QuotaTopology.STORE).get("10|agent:a|read|x:*"))
                .isEqualTo(3L);
    }

    @Test
    void aChainConsumesEveryCounterOrNone() {
        QuotaRequest.Step child = new QuotaRequest.Step("delegation:d1|read|x:y", 5);
        QuotaRequest.Step parent = new QuotaRequest.Step("agent:a|read|x:*", 2);
        assertThat(ask(10, child, parent).granted()).isTrue();
        assertThat(ask(10, parent).granted()).isTrue();
        assertThat(ask(10, child, parent).granted()).isFalse();
        assertThat(driver.<String, Long>getKeyValueStore(QuotaTopology.STORE).get("10|delegation:d1|read|x:y"))
                .as("a refused chain leaves the child counter untouched")
                .isEqualTo(1L);
    }

    @Test
    void eachClockHourHasItsOwnCounter() {
        QuotaRequest.Step step = new QuotaRequest.Step("agent:a|read|x:*", 1);
        assertThat(ask(10, step).granted()).isTrue();
        assertThat(ask(10, step).granted()).isFalse();
        assertThat(ask(11, step).granted()).isTrue();
    }

    @Test
    void countersOfOldHoursAreEvicted() {
        QuotaRequest.Step step = new QuotaRequest.Step("agent:a|read|x:*", 5);
        ask(10, step);
        ask(12, step);
        driver.advanceWallClockTime(java.time.Duration.ofMinutes(6));
        assertThat(driver.<String, Long>getKeyValueStore(QuotaTopology.STORE).get("10|agent:a|read|x:*"))
                .isNull();
        assertThat(driver.<String, Long>getKeyValueStore(QuotaTopology.STORE).get("12|agent:a|read|x:*"))
                .isEqualTo(1L);
    }
}
