package dev.warden.api.users;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Argon2id password hashing (RFC 9106) in the PHC string format
 * {@code $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>} (unpadded standard base64, 16-byte salt,
 * 32-byte hash). Passwords are NFKC-normalised first (NIST SP 800-63B 5.1.1.2), so the same password typed
 * on different keyboards verifies.
 *
 * <p>{@link #verify} takes the same time whether or not a real hash is given: callers with no user verify
 * against {@link #dummyHash()}, computed with the current parameters. At most {@code maxConcurrentHashes}
 * computations run at once (each holds {@code memoryKib} of memory); further callers wait. Thread-safe.
 */
public final class PasswordHasher {
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private final SecureRandom random = new SecureRandom();
    private final int memoryKib;
    private final int iterations;
    private final int parallelism;
    private final Semaphore permits;
    private final String dummyHash;

    public PasswordHasher(UsersConfig.PasswordRules rules) {
        this.memoryKib = rules.memoryKib();
        this.iterations = rules.iterations();
        this.parallelism = rules.parallelism();
        this.permits = new Semaphore(rules.maxConcurrentHashes(), true);
        byte[] junk = new byte[24];
        random.nextBytes(junk);
        this.dummyHash = hash(B64.encodeToString(junk));
    }

    /** A fresh PHC string for {@code password} with a random salt and the current parameters. */
    public String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        byte[] out = compute(password, salt, memoryKib, iterations, parallelism, HASH_BYTES);
        return "$argon2id$v=19$m=" + memoryKib + ",t=" + iterations + ",p=" + parallelism + "$"
                + B64.encodeToString(salt) + "$" + B64.encodeToString(out);
    }

    /**
     * True when {@code password} matches {@code encoded}; false for a mismatch or an unreadable hash. The
     * comparison is constant-time.
     */
    public boolean verify(String password, String encoded) {
        Optional<Phc> phc = Phc.parse(encoded);
        if (phc.isEmpty()) {
            return false;
        }
        Phc p = phc.get();
        byte[] actual = compute(password, p.salt(), p.memoryKib(), p.iterations(), p.parallelism(), p.hash().length);
        return MessageDigest.isEqual(actual, p.hash());
    }

    /** True when {@code encoded} was made with other parameters than the current ones (rehash on sign-in). */
    public boolean needsRehash(String encoded) {
        return Phc.parse(encoded)
                .map(p -> p.memoryKib() != memoryKib
                        || p.iterations() != iterations
                        || p.parallelism() != parallelism
                        || p.hash().length != HASH_BYTES)
                .orElse(true);
    }

    /** A hash of a random secret with the current parameters, to verify against when there is no user. */
    public String dummyHash() {
        return dummyHash;
    }

    private byte[] compute(String password, byte[] salt, int memory, int passes, int lanes, int length) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memory)
                .withIterations(passes)
                .withParallelism(lanes)
                .withSalt(salt)
                .build();
        byte[] secret = Normalizer.normalize(password, Normalizer.Form.NFKC).getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[length];
        permits.acquireUninterruptibly();
        try {
            Argon2BytesGenerator generator = new Argon2BytesGenerator();
            generator.init(params);
            generator.generateBytes(secret, out);
            return out;
        } finally {
            permits.release();
            Arrays.fill(secret, (byte) 0);
        }
    }

    /** A parsed PHC string. */
    private record Phc(int memoryKib, int iterations, int parallelism, byte[] salt, byte[] hash) {
        static Optional<Phc> parse(String encoded) {
            String[] parts = encoded.split("\\$");
            if (parts.length != 6 || !parts[0].isEmpty() || !parts[1].equals("argon2id") || !parts[2].equals("v=19")) {
                return Optional.empty();
            }
            try {
                int m = -1;
                int t = -1;
                int p = -1;
                for (String kv : parts[3].split(",")) {
                    String[] pair = kv.split("=", 2);
                    int value = Integer.parseInt(pair[1]);
                    switch (pair[0]) {
                        case "m" -> m = value;
                        case "t" -> t = value;
                        case "p" -> p = value;
                        default -> {
                            return Optional.empty();
                        }
                    }
                }
                byte[] salt = B64D.decode(parts[4]);
                byte[] hash = B64D.decode(parts[5]);
                if (m < 8 || t < 1 || p < 1 || p > 64 || salt.length < 8 || hash.length < 16 || m > 4 * 1024 * 1024) {
                    return Optional.empty();
                }
                return Optional.of(new Phc(m, t, p, salt, hash));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }
}
