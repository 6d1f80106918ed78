package dev.warden.api.http;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.runtime.db.Keyset;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opaque, tamper-evident cursors of the administration lists (keyset pagination, newest first). A cursor is the
 * position after the last item of a page ({@code createdAt}, {@code id}) bound to the list it came from (e.g.
 * the agents of one organization): {@code base64url(payload) "." base64url(HMAC-SHA256(key, payload))[0..16]}.
 * A cursor that was altered, forged or comes from another list is refused with {@code bad_cursor}. The key is
 * shared by every instance ({@code server_secrets}). Thread-safe.
 */
public final class ListCursor {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    private static final int MAC_BYTES = 16;
    private static final int MAX_LENGTH = 512;

    private final SecretKeySpec key;

    public ListCursor(byte[] key) {
        this.key = new SecretKeySpec(key.clone(), "HmacSHA256");
    }

    /** The cursor of {@code position} in the list {@code list}. */
    public String encode(String list, Keyset position) {
        byte[] payload = (list + "|" + position.createdAt() + "|" + position.id()).getBytes(StandardCharsets.UTF_8);
        return ENCODER.encodeToString(payload) + "." + ENCODER.encodeToString(mac(payload));
    }

    /**
     * The position {@code cursor} names in {@code list}.
     *
     * @throws InvalidInputException {@code bad_cursor} for anything Warden did not issue for this list
     */
    public Keyset decode(String list, String cursor) {
        try {
            int dot = cursor.indexOf('.');
            if (cursor.length() > MAX_LENGTH || dot < 0) {
                throw bad();
            }
            String[] parts =
                    new String(DECODER.decode(cursor.substring(0, dot)), StandardCharsets.UTF_8).split("\\|", -1);
            if (parts.length != 3) {
                throw bad();
            }
            Keyset position = new Keyset(Instant.parse(parts[1]), parts[2]);
            // Re-encoding and comparing the whole cursor also refuses other spellings of the same bytes.
            byte[] expected = encode(list, position).getBytes(StandardCharsets.UTF_8);
            if (!MessageDigest.isEqual(expected, cursor.getBytes(StandardCharsets.UTF_8))) {
                throw bad();
            }
            return position;
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw bad();
        }
    }

    private byte[] mac(byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return Arrays.copyOf(mac.doFinal(payload), MAC_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    private static InvalidInputException bad() {
        return new InvalidInputException(
                ErrorCode.BAD_CURSOR,
                "cursor is not one this list issued",
                List.of(new FieldError("cursor", "is not one this list issued")));
    }
}
