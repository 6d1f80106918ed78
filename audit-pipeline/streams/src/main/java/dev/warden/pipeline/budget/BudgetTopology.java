package dev.warden.pipeline.budget;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventSerdes;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Budgets: follows {@code warden.events}, learns each agent's budget from its {@code agent.created} and
 * {@code agent.updated} events, sums {@code cost.recorded} per agent and period (UTC day or month of the
 * cost), and emits {@code budget.exceeded} back to {@code warden.events} once per agent and period, when the
 * sum first goes above {@code maxCostUsd}. The topic has one partition, so one task sees every event in order.
 *
 * <p>It also keeps {@code warden.budget.spend} (compacted, keyed by agent id) current for readers such as the
 * console's dashboard: each time an agent's budget is learned or a cost is added, the value
 * {@code <spentUsd>|<maxCostUsd>|<period>|<periodKey>} of the period the event falls in; a tombstone when the agent
 * no longer has a budget.
 */
public final class BudgetTopology {
    static final String BUDGETS = "budget-limits";
    static final String SPENT = "budget-spent";
    /** The event types the topology reads; every other event is skipped undecoded. */
    static final Set<EventType> INPUT_TYPES =
            EnumSet.of(EventType.AGENT_CREATED, EventType.AGENT_UPDATED, EventType.COST_RECORDED);

    private BudgetTopology() {}

    /** What the processor emits: a {@code budget.exceeded} event, or a new spend value (null: no budget). */
    record Output(StreamEvent.Draft exceeded, boolean spendChanged, String spend) {
        static Output exceeded(StreamEvent.Draft event) {
            return new Output(event, false, null);
        }

        static Output spend(String value) {
            return new Output(null, true, value);
        }
    }

    /** The spend value {@code <spentUsd>|<maxCostUsd>|<period>|<periodKey>}. */
    static String spendValue(BigDecimal spent, BigDecimal max, String period, String periodKey) {
        return spent.toPlainString() + "|" + max.toPlainString() + "|" + period + "|" + periodKey;
    }

    /** Adds the topology to {@code builder}. */
    public static void build(StreamsBuilder builder, String eventsTopic, String spendTopic) {
        builder.addStateStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(BUDGETS), Serdes.String(), Serdes.String()));
        builder.addStateStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(SPENT), Serdes.String(), Serdes.String()));
        KStream<String, Output> out = builder.stream(
                        eventsTopic, Consumed.with(Serdes.String(), StreamEventSerdes.drafts(INPUT_TYPES)))
                .process(BudgetProcessor::new, BUDGETS, SPENT);
        out.filter((agent, o) -> o.exceeded() != null)
                .mapValues(Output::exceeded)
                .to(eventsTopic, Produced.with(Serdes.String(), StreamEventSerdes.drafts()));
        out.filter((agent, o) -> o.spendChanged())
                .mapValues(Output::spend)
                .to(spendTopic, Produced.with(Serdes.String(), Serdes.String()));
    }

    /** The period key of a cost at {@code day}: {@code 2026-11-23} or {@code 2026-11}. */
    static String periodKey(String period, LocalDate day) {
        return "month".equals(period) ? day.toString().substring(0, 7) : day.toString();
    }

    static final class BudgetProcessor implements Processor<String, StreamEvent.Draft, String, Output> {
        private ProcessorContext<String, Output> context;
        private KeyValueStore<String, String> budgets;
        private KeyValueStore<String, String> spent;

        @Override
        public void init(ProcessorContext<String, Output> context) {
            this.context = context;
            this.budgets = context.getStateStore(BUDGETS);
            this.spent = context.getStateStore(SPENT);
        }

        @Override
        public void process(Record<String, StreamEvent.Draft> record) {
            StreamEvent.Draft event = record.value();
            if (event == null || event.agentId().isEmpty()) {
                return;
            }
            String agent = event.agentId().get();
            switch (event.type()) {
                case AGENT_CREATED, AGENT_UPDATED -> learnBudget(agent, event, record);
                case COST_RECORDED -> addCost(agent, event, record);
                default -> {}
            }
        }

        @SuppressWarnings("unchecked")
        private void learnBudget(String agent, StreamEvent.Draft event, Record<String, StreamEvent.Draft> record) {
            Object view = event.data().get("agent");
            Object budget = view instanceof Map<?, ?> m ? m.get("budget") : null;
            if (budget instanceof Map<?, ?> b && b.get("maxCostUsd") != null && b.get("period") != null) {
                BigDecimal max = new BigDecimal(b.get("maxCostUsd").toString());
                String period = b.get("period").toString();
                budgets.put(agent, max.toPlainString() + "|" + period);
                String periodKey = periodKey(period, LocalDate.ofInstant(event.timestamp(), ZoneOffset.UTC));
                String state = spent.get(agent + "|" + periodKey);
                BigDecimal sum =
                        state == null ? BigDecimal.ZERO : new BigDecimal(state.substring(0, state.indexOf('|')));
                context.forward(record.withKey(agent).withValue(Output.spend(spendValue(sum, max, period, periodKey))));
            } else if (budgets.get(agent) != null) {
                budgets.delete(agent);
                context.forward(record.withKey(agent).withValue(Output.spend(null)));
            }
        }

        private void addCost(String agent, StreamEvent.Draft event, Record<String, StreamEvent.Draft> record) {
            String limit = budgets.get(agent);
            Object cost = event.data().get("cost") instanceof Map<?, ?> c ? c.get("costUsd") : null;
            if (limit == null || cost == null) {
                return;
            }
            BigDecimal max = new BigDecimal(limit.substring(0, limit.indexOf('|')));
            String period = limit.substring(limit.indexOf('|') + 1);
            String key = agent + "|" + periodKey(period, LocalDate.ofInstant(event.timestamp(), ZoneOffset.UTC));
            String state = spent.get(key);
            BigDecimal before =
                    state == null ? BigDecimal.ZERO : new BigDecimal(state.substring(0, state.indexOf('|')));
            boolean alerted = state != null && state.endsWith("|alerted");
            BigDecimal after = before.add(new BigDecimal(cost.toString()));
            boolean crossing = !alerted && after.compareTo(max) > 0;
            spent.put(key, after.toPlainString() + (alerted || crossing ? "|alerted" : "|ok"));
            context.forward(record.withKey(agent)
                    .withValue(Output.spend(spendValue(after, max, period, key.substring(agent.length() + 1)))));
            if (crossing) {
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("agentId", agent);
                data.put("maxCostUsd", max);
                data.put("period", period);
                data.put("periodKey", key.substring(agent.length() + 1));
                data.put("spentUsd", after);
                context.forward(record.withKey(agent)
                        .withValue(Output.exceeded(new StreamEvent.Draft(
                                EventType.BUDGET_EXCEEDED,
                                event.timestamp(),
                                data,
                                Optional.of(agent),
                                event.userId()))));
                // Until its transaction commits, this event holds every later one on warden.events back from
                // committed readers: commit in this loop turn, not at the interval (D193).
                context.commit();
            }
        }
    }
}
