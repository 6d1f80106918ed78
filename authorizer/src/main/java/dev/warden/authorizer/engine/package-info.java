/**
 * The permission engine: decides which of an agent's grants allow a call, and whether a delegated
 * permission is a subset of what its source holds. Pure: it imports only the JDK and
 * {@code dev.warden.authorizer.domain}, does no I/O, keeps no clock and no counters.
 *
 * <h2>Resource patterns</h2>
 * The grammar is {@link dev.warden.authorizer.domain.ResourcePattern}'s:
 * <pre>
 *   pattern  = "*" | segments [ ":*" ]
 *   segments = segment *( ":" segment )      ; a segment is non-empty and holds no ':' or '*'
 * </pre>
 * <ul>
 *   <li>{@code mcp:github:issues} matches exactly that resource;</li>
 *   <li>{@code mcp:github:*} matches one or more further segments: {@code mcp:github:issues} and
 *       {@code mcp:github:issues:42}, not {@code mcp:github}, not {@code mcp:gitlab:x}, not
 *       {@code mcp:githubx:y};</li>
 *   <li>{@code *} matches every resource.</li>
 * </ul>
 * Pattern {@code A} <em>covers</em> pattern {@code B} when every resource matched by {@code B} is matched
 * by {@code A} ({@link dev.warden.authorizer.engine.CompiledPattern#covers}): {@code mcp:github:*} covers
 * {@code mcp:github:issues:*} and {@code mcp:github:issues} but not the reverse; {@code *} covers every
 * pattern and only {@code *} covers {@code *}.
 *
 * <h2>Actions</h2>
 * A grant allows the actions it names (exact, case-sensitive) or, when it names {@code *}, every action.
 * Delegated actions are covered when each is named by the source grant or the source has {@code *}; a
 * delegated {@code *} needs a source {@code *} ({@link dev.warden.authorizer.engine.ActionSet}).
 *
 * <h2>Delegation</h2>
 * A delegated permission must be covered, pattern and actions, by <em>one</em> grant of the source agent
 * ({@link dev.warden.authorizer.engine.PermissionCoverage}); that grant is its parent
 * ({@link dev.warden.authorizer.engine.CompiledPolicy#coveringGrant}). The resulting
 * {@link dev.warden.authorizer.engine.EffectiveGrant} carries its own {@code maxCallsPerHour} constraint
 * and every constraint of its ancestors, nearest first, each a
 * {@link dev.warden.authorizer.engine.ConstrainedStep} that names the grant owning the counter. Conditions chain
 * the same way ({@link dev.warden.authorizer.engine.ConditionStep}): the engine holds them as data and the
 * {@code condition} package evaluates them.
 *
 * <h2>Order of grants</h2>
 * When several grants match a call, the call is allowed if any allows it. A
 * {@link dev.warden.authorizer.engine.CompiledPolicy} tries them in this order:
 * <ol>
 *   <li>unrestricted grants (no budget and no condition anywhere in the chain) before restricted ones, so a
 *       call that a free grant allows evaluates nothing and spends no budget;</li>
 *   <li>unconstrained grants (no budget in the chain) before constrained ones, so a call that a grant whose
 *       conditions hold allows never spends a budget;</li>
 *   <li>more literal segments first ({@code *} has none), so the narrowest grant spends its own budget
 *       before a broad one;</li>
 *   <li>exact before wildcard at the same number of literal segments ({@code a:b} before {@code a:b:*});</li>
 *   <li>pattern text, lexicographically;</li>
 *   <li>for equal patterns: fewer constraint steps first, then the grant key (origin and actions), then
 *       the constraint chain, then the remaining fields and the condition chain as written; so the order depends
 *       only on the set of grants,
 *       never on input order.</li>
 * </ol>
 * Consequently, when the first matching grant is restricted, so is every matching grant.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>All public types are immutable and thread-safe; compile a policy once per agent and share it.</li>
 *   <li>{@link dev.warden.authorizer.engine.CompiledPattern#matches},
 *       {@link dev.warden.authorizer.engine.ActionSet#allows} and
 *       {@link dev.warden.authorizer.engine.CompiledPolicy#firstMatch} allocate nothing: no regex, no split,
 *       no substring; candidates are narrowed by the resource's first segment.</li>
 *   <li>Resources are expected to be valid concrete resources; matching is literal, so an invalid one is
 *       never matched beyond a pattern's literal text.</li>
 * </ul>
 */
package dev.warden.authorizer.engine;
