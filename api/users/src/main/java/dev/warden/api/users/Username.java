package dev.warden.api.users;

/**
 * A valid username in its two forms.
 *
 * @param display as the user chose it (NFC-normalised), shown back everywhere
 * @param key     the lookup form, unique among users: {@code display} lower-cased (locale-independent)
 *                unless usernames are case-sensitive
 */
public record Username(String display, String key) {}
