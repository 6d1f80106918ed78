package dev.warden.api.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.Budget;
import dev.warden.authorizer.domain.BudgetPeriod;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.WireEnum;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** JSON form of an agent's budget: {@code {"maxCostUsd": 25.5, "period": "day"|"month"}}. */
final class BudgetJson {
    private static final Set<String> FIELDS = Set.of("maxCostUsd", "period");
    private static final BigDecimal MAX = new BigDecimal("1000000000");
    /** Decimal places a budget may have (a millionth of a millionth of a dollar). */
    static final int MAX_SCALE = 12;

    private BudgetJson() {}

    /** Field {@code budget} of {@code in}; empty when absent or null. */
    static Optional<Budget> parse(JsonInput in) {
        Optional<JsonNode> raw = in.raw("budget");
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        if (!(raw.get() instanceof ObjectNode object)) {
            in.error("budget", "must be a JSON object {maxCostUsd, period}");
            return Optional.empty();
        }
        JsonInput b = in.nested(object, "budget", FIELDS);
        Optional<BigDecimal> max =
                b.optionalDecimal("maxCostUsd", BigDecimal.ZERO, MAX, MAX_SCALE).filter(v -> v.signum() > 0);
        if (max.isEmpty() && b.isValid()) {
            b.error(
                    "maxCostUsd",
                    "is required: a number above 0 and at most 1000000000, at most " + MAX_SCALE + " decimal places");
        }
        Optional<BudgetPeriod> period = b.requiredEnum("period", BudgetPeriod.class);
        if (max.isEmpty() || period.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Budget(max.get(), period.get()));
    }

    /** As JDK values, for responses and event data. */
    static Map<String, Object> asData(Budget budget) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("maxCostUsd", budget.maxCostUsd());
        data.put("period", budget.period().wireName());
        return data;
    }

    static String stored(Budget budget) {
        try {
            return Json.mapper().writeValueAsString(asData(budget));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Budget fromStored(String json) {
        try {
            JsonNode node = Json.mapper().readTree(json);
            return new Budget(
                    node.get("maxCostUsd").decimalValue(),
                    WireEnum.parse(BudgetPeriod.class, node.get("period").asText())
                            .orElseThrow());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
