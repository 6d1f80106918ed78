package dev.warden.authorizer.condition;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.engine.ConditionStep;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiles conditions to CEL programs, once, and evaluates them under a cost limit. Thread-safe; one instance
 * serves the whole process.
 *
 * <p>The cost limit (docs/conditions.md): an expression is at most {@value #MAX_EXPRESSION_LENGTH} characters and
 * {@value #MAX_NODES} syntax nodes; a comprehension runs at most {@value #MAX_ITERATIONS} iterations; one
 * evaluation visits at most {@value #MAX_STEPS} nodes and builds no string longer than {@value #MAX_STRING}
 * characters nor list or map of more than {@value #MAX_ITEMS} items. Going over ends the evaluation, and the
 * condition does not hold. So does an evaluation error (a missing key, a division by zero) or a result that is not
 * a boolean: a condition fails closed.
 */
public final class Conditions {
    /** The longest {@code when} expression. */
    public static final int MAX_EXPRESSION_LENGTH = 2048;
    /** The most syntax nodes in one expression. */
    public static final int MAX_NODES = 500;
    /** The most iterations of one comprehension ({@code all}, {@code exists}, {@code map}, {@code filter}). */
    public static final int MAX_ITERATIONS = 1000;
    /** The most nodes one evaluation visits. */
    public static final int MAX_STEPS = 10_000;
    /** The longest string an evaluation may build. */
    public static final int MAX_STRING = 65_536;
    /** The most items in a list or map an evaluation may build. */
    public static final int MAX_ITEMS = 10_000;

    /** Compiled programs kept, by condition; past this the cache starts over (programs are cheap to rebuild). */
    private static final int CACHE_SIZE = 10_000;

    private static final List<String> VARIABLES = List.of("arguments", "context", "resource", "agent", "user");

    private static final class Standard {
        static final Conditions INSTANCE = new Conditions();
    }

    private final Cel cel;
    private final Map<Condition, CelRuntime.Program> programs = new ConcurrentHashMap<>();
    private final Map<String, Cidr> ranges = new ConcurrentHashMap<>();

    /**
     * The process's instance: one CEL environment and one cache of programs for every writer and decision. Built on
     * first use.
     */
    public static Conditions standard() {
        return Standard.INSTANCE;
    }

    private Conditions() {
        var builder = CelFactory.standardCelBuilder()
                .setOptions(CelOptions.current()
                        .evaluateCanonicalTypesToNativeValues(true)
                        .comprehensionMaxIterations(MAX_ITERATIONS)
                        .maxParseExpressionNodeCount(MAX_NODES)
                        .maxParseRecursionDepth(64)
                        .build())
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .setResultType(SimpleType.BOOL)
                .addVar("action", SimpleType.STRING)
                .addFunctionDeclarations(CelFunctionDecl.newFunctionDeclaration(
                        "ipInCidr",
                        CelOverloadDecl.newGlobalOverload(
                                "ipInCidr_string_string",
                                "true when the address (first) lies in the CIDR range (second)",
                                SimpleType.BOOL,
                                SimpleType.STRING,
                                SimpleType.STRING)))
                .addFunctionBindings(CelFunctionBinding.from(
                        "ipInCidr_string_string",
                        String.class,
                        String.class,
                        (ip, cidr) -> cidr(cidr).contains(ip)));
        for (String variable : VARIABLES) {
            builder.addVar(variable, MapType.create(SimpleType.STRING, SimpleType.DYN));
        }
        this.cel = builder.build();
    }

    /**
     * Why {@code expression} cannot be a {@code when}, with the position (line and column, from 1) of the first
     * problem; empty when it compiles to a boolean expression.
     */
    public Optional<String> problem(String expression) {
        if (expression.isBlank()) {
            return Optional.of("must be a non-blank CEL expression");
        }
        if (expression.length() > MAX_EXPRESSION_LENGTH) {
            return Optional.of("must be at most " + MAX_EXPRESSION_LENGTH + " characters");
        }
        try {
            cel.compile(expression).getAst();
            return Optional.empty();
        } catch (CelValidationException e) {
            CelIssue issue = e.getErrors().getFirst();
            var at = issue.getSourceLocation();
            return Optional.of("is not a valid condition at line " + at.getLine() + ", column " + (at.getColumn() + 1)
                    + ": " + issue.getMessage());
        } catch (RuntimeException e) {
            return Optional.of("is not a valid condition: " + e.getMessage());
        }
    }

    /**
     * The program of {@code condition}, compiled now or taken from the cache.
     *
     * @throws IllegalArgumentException when its {@code when} does not compile (see {@link #problem})
     */
    public CelRuntime.Program compile(Condition condition) {
        CelRuntime.Program program = programs.get(condition);
        if (program != null) {
            return program;
        }
        condition.when().flatMap(this::problem).ifPresent(problem -> {
            throw new IllegalArgumentException("when " + problem);
        });
        try {
            CelAbstractSyntaxTree ast = cel.compile(ConditionText.of(condition)).getAst();
            program = cel.createProgram(ast);
        } catch (CelValidationException | CelEvaluationException e) {
            throw new IllegalArgumentException("condition does not compile: " + e.getMessage(), e);
        }
        if (programs.size() >= CACHE_SIZE) {
            programs.clear();
        }
        programs.put(condition, program);
        return program;
    }

    /** The range {@code text} names, parsed once (bounded like the programs); throws as {@link Cidr#parse} does. */
    private Cidr cidr(String text) {
        Cidr range = ranges.get(text);
        if (range == null) {
            range = Cidr.parse(text);
            if (ranges.size() >= CACHE_SIZE) {
                ranges.clear();
            }
            ranges.put(text, range);
        }
        return range;
    }

    /** A condition that did not hold, and why: {@code false}, or what ended its evaluation. */
    public record Unmet(ConditionStep step, String why) {}

    /**
     * The first of {@code steps} whose condition does not hold for {@code facts}, in order; empty when all hold.
     * Each variable is built once, when an expression first reads it.
     */
    public Optional<Unmet> firstUnmet(List<ConditionStep> steps, DecisionFacts facts) {
        return evaluation(facts).firstUnmet(steps);
    }

    /**
     * The conditions of one decision: every grant's conditions read the same facts, so each variable is built once
     * for the whole decision, however many grants it tries.
     */
    public Evaluation evaluation(DecisionFacts facts) {
        return new Evaluation(new LazyVariables(facts));
    }

    /** One decision's evaluation of conditions (not thread-safe: one decision, one thread). */
    public final class Evaluation {
        private final CelVariableResolver variables;

        private Evaluation(CelVariableResolver variables) {
            this.variables = variables;
        }

        /** The first of {@code steps} whose condition does not hold, in order; empty when all hold. */
        public Optional<Unmet> firstUnmet(List<ConditionStep> steps) {
            return Conditions.this.firstUnmet(steps, variables);
        }
    }

    private Optional<Unmet> firstUnmet(List<ConditionStep> steps, CelVariableResolver variables) {
        for (ConditionStep step : steps) {
            Optional<String> why;
            try {
                why = evaluate(compile(step.condition()), variables);
            } catch (IllegalArgumentException e) {
                // Written before a stricter check, say: it can never hold, and the decision stays a decision.
                why = Optional.of("error: " + e.getMessage());
            }
            if (why.isPresent()) {
                return Optional.of(new Unmet(step, why.get()));
            }
        }
        return Optional.empty();
    }

    /** Empty when the program answers {@code true}; otherwise why it did not. */
    private static Optional<String> evaluate(CelRuntime.Program program, CelVariableResolver variables) {
        Budget budget = new Budget();
        try {
            Object result = program.trace(variables, budget);
            return Boolean.TRUE.equals(result) ? Optional.empty() : Optional.of("false");
        } catch (CelEvaluationException e) {
            return Optional.of(
                    e.getCause() instanceof OverBudget over ? over.getMessage() : "error: " + e.getMessage());
        } catch (OverBudget e) {
            return Optional.of(e.getMessage());
        } catch (RuntimeException e) {
            return Optional.of("error: " + e.getMessage());
        }
    }

    /** The facts' variables, each built on first read and kept for the other conditions of the same decision. */
    private static final class LazyVariables implements CelVariableResolver {
        private final DecisionFacts facts;
        private final Map<String, Optional<Object>> built = new HashMap<>(8);

        LazyVariables(DecisionFacts facts) {
            this.facts = facts;
        }

        @Override
        public Optional<Object> find(String name) {
            return built.computeIfAbsent(name, facts::variable);
        }
    }

    /** Counts the nodes one evaluation visits and the size of what it builds; past a limit, ends it. */
    private static final class Budget implements dev.cel.runtime.CelEvaluationListener {
        private int steps;

        @Override
        public void callback(dev.cel.common.ast.CelExpr expr, Object value) {
            if (++steps > MAX_STEPS) {
                throw new OverBudget("cost limit: more than " + MAX_STEPS + " evaluation steps");
            }
            if (value instanceof String s && s.length() > MAX_STRING) {
                throw new OverBudget("cost limit: a string longer than " + MAX_STRING + " characters");
            }
            if ((value instanceof Collection<?> c && c.size() > MAX_ITEMS)
                    || (value instanceof Map<?, ?> m && m.size() > MAX_ITEMS)) {
                throw new OverBudget("cost limit: a list or map of more than " + MAX_ITEMS + " items");
            }
        }
    }

    /** Thrown by {@link Budget} to end an evaluation. */
    private static final class OverBudget extends RuntimeException {
        OverBudget(String message) {
            super(message, null, false, false);
        }
    }
}
