package dev.warden.authorizer.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Candidate grants by the first segment of a resource, looked up without allocating.
 *
 * <p>An open-addressing table keyed by first literal segment. Each slot holds, in policy order, the grants
 * with that first segment merged with the grants that have none (bare {@code *}); a resource whose first
 * segment is in no slot gets the bare-{@code *} grants alone. The lookup hashes the resource's chars up to
 * the first {@code ':'} and compares with {@link String#regionMatches}, so no substring is created.
 */
final class FirstSegmentIndex {
    private static final CompiledGrant[] NONE = new CompiledGrant[0];

    private final String[] keys;
    private final int[] hashes;
    private final CompiledGrant[][] candidates;
    private final CompiledGrant[] universal;
    private final int mask;

    private FirstSegmentIndex(String[] keys, int[] hashes, CompiledGrant[][] candidates, CompiledGrant[] universal) {
        this.keys = keys;
        this.hashes = hashes;
        this.candidates = candidates;
        this.universal = universal;
        this.mask = keys.length - 1;
    }

    /** Indexes {@code ordered}, which is already in policy order; each slot keeps that order. */
    static FirstSegmentIndex build(List<CompiledGrant> ordered) {
        Map<String, List<CompiledGrant>> bySegment = new LinkedHashMap<>();
        List<CompiledGrant> universal = new ArrayList<>();
        for (CompiledGrant grant : ordered) {
            if (grant.pattern.literalSegments() == 0) {
                universal.add(grant);
                bySegment.values().forEach(list -> list.add(grant));
            } else {
                bySegment
                        .computeIfAbsent(grant.pattern.firstSegment(), k -> new ArrayList<>(universal))
                        .add(grant);
            }
        }
        // A power of two above 2n, so the table is under half full and every probe ends at an empty slot.
        int capacity = Integer.highestOneBit(2 * bySegment.size() + 1) << 1;
        String[] keys = new String[capacity];
        int[] hashes = new int[capacity];
        CompiledGrant[][] candidates = new CompiledGrant[capacity][];
        for (Map.Entry<String, List<CompiledGrant>> entry : bySegment.entrySet()) {
            String key = entry.getKey();
            int hash = hash(key, key.length());
            int slot = hash & (capacity - 1);
            while (keys[slot] != null) {
                slot = (slot + 1) & (capacity - 1);
            }
            keys[slot] = key;
            hashes[slot] = hash;
            candidates[slot] = entry.getValue().toArray(NONE);
        }
        return new FirstSegmentIndex(keys, hashes, candidates, universal.toArray(NONE));
    }

    /** The grants that may match {@code resource}, in policy order. Allocation-free. */
    CompiledGrant[] candidates(String resource) {
        int colon = resource.indexOf(':');
        int length = colon < 0 ? resource.length() : colon;
        int hash = hash(resource, length);
        int slot = hash & mask;
        String key;
        while ((key = keys[slot]) != null) {
            if (hashes[slot] == hash && key.length() == length && resource.regionMatches(0, key, 0, length)) {
                return candidates[slot];
            }
            slot = (slot + 1) & mask;
        }
        return universal;
    }

    /** {@link String#hashCode()} of the first {@code length} chars, with the high bits folded in. */
    private static int hash(String s, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = 31 * h + s.charAt(i);
        }
        return h ^ (h >>> 16);
    }
}
