package dev.warden.api.errors;

/**
 * One invalid input: {@code field} is a JSON pointer-like path into the body ({@code permissions[0].resource}),
 * or the name of a query or path parameter.
 */
public record FieldError(String field, String message) {}
