package dev.warden.api.events.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Per-subscriber shares, the overall cap and the administrator's reserve. */
class ConnectionSlotsTest {
    @Test
    void aSubscriberGetsItsShareTheRestGoesToOthersAndTheAdministratorHasAReserve() {
        ConnectionSlots slots = new ConnectionSlots(3, 2, 1);
        Subscriber ann = Subscriber.ofUser("ann", "ann");
        Subscriber bob = Subscriber.ofUser("bob", "bob");
        Subscriber admin = Subscriber.administrator("admin");

        Optional<ConnectionSlots.Slot> first = slots.acquire(ann);
        assertThat(first).isPresent();
        assertThat(slots.acquire(ann)).isPresent();
        assertThat(slots.acquire(ann)).as("over ann's share").isEmpty();
        assertThat(slots.acquire(bob)).isPresent();
        assertThat(slots.acquire(bob)).as("the cap").isEmpty();
        assertThat(slots.acquire(admin)).as("the reserve").isPresent();
        assertThat(slots.acquire(admin)).isEmpty();
        assertThat(slots.inUse()).isEqualTo(4);

        first.orElseThrow().release();
        first.orElseThrow().release(); // twice: once only
        assertThat(slots.inUse()).isEqualTo(3);
        assertThat(slots.acquire(bob)).isPresent();
        assertThat(slots.acquire(ann)).isEmpty();
    }
}
