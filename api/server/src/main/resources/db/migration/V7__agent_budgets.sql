-- Optional per-agent cost budget: {"maxCostUsd": <number>, "period": "day"|"month"}.
ALTER TABLE agents ADD COLUMN budget jsonb;
