package dev.warden.authorizer.domain;

import java.math.BigDecimal;

/**
 * An agent's cost budget: at most {@code maxCostUsd} per {@code period}. Crossing it emits
 * {@code budget.exceeded} once per period; it does not block calls.
 */
public record Budget(BigDecimal maxCostUsd, BudgetPeriod period) {
    public Budget {
        if (maxCostUsd.signum() <= 0) {
            throw new IllegalArgumentException("maxCostUsd must be positive");
        }
    }
}
