package dev.warden.launcher.roles;

import dev.warden.api.observe.HealthCheck;
import org.apache.kafka.streams.KafkaStreams;

/** Health of a Kafka Streams application: UP while RUNNING, DOWN with its state otherwise. */
record StreamsHealth(String name, KafkaStreams streams) implements HealthCheck {
    @Override
    public Result check() {
        KafkaStreams.State state = streams.state();
        return state == KafkaStreams.State.RUNNING ? Result.up("RUNNING") : Result.down(state.name());
    }
}
