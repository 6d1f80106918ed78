package dev.warden.api.console;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.Permission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A delegation chain laid out for drawing (the console renders it as SVG, every label as text): the agent in
 * question, the agents whose delegations lead into it in columns to its left (one column per link upwards), and
 * the agents it delegates to in a column to its right. An arrow is a delegation, from source to target.
 *
 * @param nodes  the agents, with their place
 * @param edges  the delegations, as lines between the agents' boxes
 * @param width  the drawing's width in pixels
 * @param height the drawing's height in pixels
 */
public record ChainGraph(List<Node> nodes, List<Edge> edges, int width, int height) {
    static final int BOX_WIDTH = 190;
    static final int BOX_HEIGHT = 36;
    private static final int COLUMN = 250;
    private static final int ROW = 56;
    private static final int MARGIN = 12;
    private static final int LABEL = 22;

    public ChainGraph {
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
    }

    /**
     * One agent's box.
     *
     * @param label   its name when the viewer may see it, else its id
     * @param visible whether the viewer may open its page
     * @param current whether it is the agent in question
     */
    public record Node(String agentId, String label, boolean visible, boolean current, int x, int y) {
        /** The label, shortened to fit the box. */
        public String shortLabel() {
            return label.length() <= LABEL ? label : label.substring(0, LABEL - 1) + "…";
        }

        public int width() {
            return BOX_WIDTH;
        }

        public int height() {
            return BOX_HEIGHT;
        }

        public int textX() {
            return x + 10;
        }

        public int textY() {
            return y + 23;
        }
    }

    /** One delegation's arrow; {@code title} says what it grants. */
    public record Edge(String delegationId, String title, int x1, int y1, int x2, int y2) {}

    /** True when there is nothing to draw but the agent itself. */
    public boolean isEmpty() {
        return edges.isEmpty();
    }

    /**
     * Lays out the chain around {@code agent}: {@code incoming} are delegations that lead into it (transitively),
     * {@code outgoing} those it gives. {@code names} gives the name of an agent the viewer may see.
     */
    static ChainGraph of(
            AgentId agent,
            List<Delegation> incoming,
            List<Delegation> outgoing,
            Function<AgentId, Optional<String>> names) {
        // The column of each agent: how many links up from the agent it is (breadth first).
        Map<AgentId, Integer> level = new LinkedHashMap<>();
        level.put(agent, 0);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Delegation d : incoming) {
                Integer below = level.get(d.toAgent());
                if (below != null && !level.containsKey(d.fromAgent())) {
                    level.put(d.fromAgent(), below + 1);
                    grew = true;
                }
            }
        }
        int top = level.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        Map<Integer, List<AgentId>> columns = new TreeMap<>();
        level.forEach((id, l) ->
                columns.computeIfAbsent(top - l, c -> new ArrayList<>()).add(id));
        for (Delegation d : outgoing) {
            List<AgentId> right = columns.computeIfAbsent(top + 1, c -> new ArrayList<>());
            if (!right.contains(d.toAgent()) && !level.containsKey(d.toAgent())) {
                right.add(d.toAgent());
            }
        }
        Map<AgentId, Node> placed = new LinkedHashMap<>();
        int rows = 1;
        for (Map.Entry<Integer, List<AgentId>> column : columns.entrySet()) {
            List<AgentId> ids = column.getValue();
            rows = Math.max(rows, ids.size());
            for (int row = 0; row < ids.size(); row++) {
                AgentId id = ids.get(row);
                Optional<String> name = names.apply(id);
                placed.put(
                        id,
                        new Node(
                                id.value(),
                                name.orElse(id.value()),
                                name.isPresent(),
                                id.equals(agent),
                                MARGIN + column.getKey() * COLUMN,
                                MARGIN + row * ROW));
            }
        }
        List<Edge> edges = new ArrayList<>();
        List<Delegation> all = new ArrayList<>(incoming);
        all.addAll(outgoing);
        for (Delegation d : all) {
            Node from = placed.get(d.fromAgent());
            Node to = placed.get(d.toAgent());
            if (from != null && to != null) {
                edges.add(new Edge(
                        d.id().value(),
                        d.id().value() + ": " + grants(d.permissions()),
                        from.x() + BOX_WIDTH,
                        from.y() + BOX_HEIGHT / 2,
                        to.x(),
                        to.y() + BOX_HEIGHT / 2));
            }
        }
        int columnsUsed =
                columns.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
        return new ChainGraph(
                List.copyOf(placed.values()),
                edges,
                2 * MARGIN + (columnsUsed - 1) * COLUMN + BOX_WIDTH,
                2 * MARGIN + (rows - 1) * ROW + BOX_HEIGHT);
    }

    /** What a delegation grants, in words: {@code read, write on mcp:github:*; …}. */
    static String grants(List<Permission> permissions) {
        return permissions.stream()
                .map(p -> String.join(", ", p.actions()) + " on " + p.resource())
                .collect(Collectors.joining("; "));
    }
}
