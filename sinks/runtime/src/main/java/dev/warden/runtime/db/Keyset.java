package dev.warden.runtime.db;

import java.time.Instant;

/**
 * A position in a list ordered newest first by ({@code createdAt}, {@code id}): the last row of a page; the next
 * page holds the rows strictly after it.
 */
public record Keyset(Instant createdAt, String id) {}
