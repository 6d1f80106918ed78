package dev.warden.pipeline.anomaly;

/**
 * Thresholds of the anomaly detector (docs/anomalies.md).
 *
 * @param spikeFactor      a minute is a spike when its calls reach this multiple of the agent's baseline
 * @param spikeMinCalls    ... and at least this many calls (so a quiet agent's first burst of a few calls is not one)
 * @param warmupMinutes    minutes of history an agent needs before spikes are judged
 * @param burstMinDenials  denials in one minute that make a burst ...
 * @param burstMinRatio    ... when they are at least this share of the minute's calls
 */
public record AnomalyRules(
        double spikeFactor, long spikeMinCalls, long warmupMinutes, long burstMinDenials, double burstMinRatio) {
    /** The defaults: 5x baseline and 30 calls, 5 minutes warm-up, 10 denials at 50%. */
    public static AnomalyRules defaults() {
        return new AnomalyRules(5.0, 30, 5, 10, 0.5);
    }
}
