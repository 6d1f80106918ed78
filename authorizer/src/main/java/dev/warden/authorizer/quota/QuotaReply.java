package dev.warden.authorizer.quota;

/**
 * The quota owner's answer. When {@code granted}, every counter of the request was incremented; otherwise
 * none was, and {@code exhaustedCounter} names the first counter already at its limit.
 *
 * @param remaining for a grant, the smallest number of calls left in the hour across the request's counters
 */
public record QuotaReply(String requestId, boolean granted, long hour, String exhaustedCounter, long remaining) {}
