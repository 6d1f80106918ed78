package dev.warden.api.users.totp;

/** RFC 4648 base32 without padding, the form authenticator apps take a secret in. */
public final class Base32 {
    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();

    private Base32() {}

    public static String encode(byte[] data) {
        StringBuilder out = new StringBuilder((data.length * 8 + 4) / 5);
        int buffer = 0;
        int bits = 0;
        for (byte b : data) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                out.append(ALPHABET[(buffer >> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        if (bits > 0) {
            out.append(ALPHABET[(buffer << (5 - bits)) & 31]);
        }
        return out.toString();
    }

    /** The bytes of {@code text} (upper or lower case, no padding); throws on a character outside the alphabet. */
    public static byte[] decode(String text) {
        String upper = text.toUpperCase(java.util.Locale.ROOT);
        byte[] out = new byte[upper.length() * 5 / 8];
        int buffer = 0;
        int bits = 0;
        int n = 0;
        for (int i = 0; i < upper.length(); i++) {
            int value = new String(ALPHABET).indexOf(upper.charAt(i));
            if (value < 0) {
                throw new IllegalArgumentException("not base32");
            }
            buffer = (buffer << 5) | value;
            bits += 5;
            if (bits >= 8) {
                out[n++] = (byte) (buffer >> (bits - 8));
                bits -= 8;
            }
        }
        return out;
    }
}
