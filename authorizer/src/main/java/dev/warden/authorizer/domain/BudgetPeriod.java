package dev.warden.authorizer.domain;

import dev.warden.pipeline.contract.WireEnum;
import java.util.Locale;

/** The period a cost budget covers: the UTC calendar day or month. */
public enum BudgetPeriod implements WireEnum {
    DAY,
    MONTH;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
