/**
 * Conditions on permissions (docs/conditions.md): compiling a {@link dev.warden.authorizer.domain.Condition} to a
 * CEL program once, checking it when it is written, and evaluating it against a decision's
 * {@link dev.warden.authorizer.condition.DecisionFacts} under a cost limit. The only package that uses CEL
 * ({@code dev.cel:cel}); the engine knows conditions only as data.
 */
package dev.warden.authorizer.condition;
