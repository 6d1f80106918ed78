package dev.warden.api.oauth.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.warden.runtime.cache.BoundedCache;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The ES256 keys that sign access tokens, kept in PostgreSQL (private halves sealed with the key-encryption key)
 * and shared by every instance. A key is published as soon as it exists, signs once it has been published for
 * a while ({@code prepublish}: verifiers that cache the JWK set see it before any token it signed), signs for
 * {@code rotation}, and stays published until every token it signed has expired. A new key is made when the
 * newest is older than {@code rotation} minus {@code prepublish}; instances take a lock so that one key is made
 * per period. Thread-safe.
 */
public final class SigningKeys {
    private static final Logger LOG = Logger.getLogger(SigningKeys.class.getName());
    private static final Duration RELOAD_EVERY = Duration.ofMinutes(1);
    private static final Duration UNKNOWN_KID_RELOAD_GAP = Duration.ofSeconds(5);

    private final SigningKeyRepository repository;
    private final SecretCipher cipher;
    private static final int MAX_CACHED_PUBLIC_KEYS = 64;

    private final BoundedCache<String, ECKey> publicKeys = new BoundedCache<>(MAX_CACHED_PUBLIC_KEYS);
    private final BoundedCache<String, JWSSigner> signers = new BoundedCache<>(MAX_CACHED_PUBLIC_KEYS);
    private final Duration rotation;
    private final Duration prepublish;
    private final Duration publishFor;
    private final InstantSource clock;
    private volatile Loaded loaded = new Loaded(List.of(), Instant.EPOCH);
    private final ReentrantLock reloading = new ReentrantLock();
    private final AtomicBoolean backgroundReload = new AtomicBoolean();
    private volatile Instant lastUnknownKidReload = Instant.EPOCH;

    private record Loaded(List<ECKey> keys, Instant at) {}

    /** The key {@link #signingKey()} chose from {@code from}, good until {@code until}. */
    private record Choice(Loaded from, ECKey key, Instant until) {}

    private volatile Choice choice;

    /**
     * @param accessTokenTtl the longest an access token lives: how long a key stays published after it stops signing
     */
    public SigningKeys(
            Database db, SecretCipher cipher, Duration rotation, Duration accessTokenTtl, InstantSource clock) {
        this.repository = new SigningKeyRepository(db);
        this.cipher = cipher;
        this.rotation = rotation;
        this.prepublish = min(Duration.ofHours(1), rotation.dividedBy(10));
        this.publishFor = rotation.plus(prepublish).plus(accessTokenTtl).plus(Duration.ofHours(1));
        this.clock = clock;
        if (!cipher.encrypts()) {
            LOG.warning("warden.oauth.key-encryption-key is not set: OAuth signing keys are stored unencrypted");
        }
    }

    /**
     * The key to sign with now (making one first when none is current). The choice is remembered until the first
     * moment it could change (D190): the periodic reload, a rotation falling due, a key becoming ready or expiring.
     */
    public ECKey signingKey() {
        Instant now = clock.instant();
        Choice remembered = choice;
        if (remembered != null && remembered.from() == loaded && now.isBefore(remembered.until())) {
            return remembered.key();
        }
        Loaded from = loaded;
        List<ECKey> keys = keys(now);
        Instant newest = keys.isEmpty() ? Instant.EPOCH : createdAt(keys.getLast());
        Instant rotationDue = newest.plus(rotation.minus(prepublish));
        if (keys.isEmpty() || rotationDue.isBefore(now)) {
            // With no key this process can open (none yet, or all sealed with another key-encryption key), any
            // stored row counts as old: a usable key is made rather than failing every token request.
            if (repository.insertUnlessNewer(keys.isEmpty() ? now : newest, () -> generate(now))) {
                LOG.info("made a new OAuth signing key");
            }
            keys = reload(now);
            return chosen(keys, now);
        }
        ECKey key = chosen(keys, now);
        Instant until = from.at().plus(RELOAD_EVERY);
        until = earliest(until, rotationDue);
        for (ECKey k : keys) {
            Instant ready = createdAt(k).plus(prepublish);
            if (ready.isAfter(now)) {
                until = earliest(until, ready);
            }
            until = earliest(until, expiresAt(k));
        }
        if (from == loaded) {
            choice = new Choice(from, key, until);
        }
        return key;
    }

    /** The newest key that has been published long enough, else the oldest (the first key of a deployment). */
    private ECKey chosen(List<ECKey> keys, Instant now) {
        Instant ready = now.minus(prepublish);
        for (ECKey k : keys.reversed()) {
            if (!createdAt(k).isAfter(ready)) {
                return k;
            }
        }
        return keys.getFirst();
    }

    private static Instant earliest(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /** The public key with id {@code kid}, reloading (rate-limited) when another instance may have made it. */
    public Optional<ECKey> verificationKey(String kid) {
        Instant now = clock.instant();
        Optional<ECKey> key = find(keys(now), kid);
        if (key.isEmpty() && lastUnknownKidReload.isBefore(now.minus(UNKNOWN_KID_RELOAD_GAP))) {
            lastUnknownKidReload = now;
            key = find(reload(now), kid);
        }
        return key.map(k -> {
            // toPublicJWK() re-validates the point: done once per key, not once per token.
            return publicKeys.computeIfAbsent(kid, id -> k.toPublicJWK());
        });
    }

    /**
     * The signer of {@code key} (one of {@link #signingKey()}'s), made once per key: building one checks the key
     * (curve, point), which costs as much as a signature. Access tokens and Security Event Tokens share it.
     */
    public JWSSigner signer(ECKey key) throws JOSEException {
        JWSSigner cached = signers.get(key.getKeyID());
        if (cached == null) {
            cached = EcdsaProvider.signer(key);
            signers.put(key.getKeyID(), cached);
        }
        return cached;
    }

    /** The JWK set to publish: every unexpired key's public half. */
    public JWKSet publicSet() {
        signingKey();
        return new JWKSet(
                keys(clock.instant()).stream().map(k -> (JWK) k.toPublicJWK()).toList());
    }

    private static Optional<ECKey> find(List<ECKey> keys, String kid) {
        return keys.stream().filter(k -> kid.equals(k.getKeyID())).findFirst();
    }

    /**
     * The unexpired keys. The periodic reload runs in the background while callers go on with the keys loaded: a
     * token request waiting for a reload is a token request waiting on the pool (when callers signed inside their
     * transactions, each held a connection while the reload waited for one; with every connection so held the pool
     * timed out and every token request failed, seen at 64 concurrent refresh grants). Only a process with no key
     * yet loads in the caller.
     */
    private List<ECKey> keys(Instant now) {
        Loaded current = loaded;
        if (current.keys().isEmpty()) {
            return reload(now);
        }
        if (current.at().plus(RELOAD_EVERY).isBefore(now) && backgroundReload.compareAndSet(false, true)) {
            Thread.ofVirtual().name("warden-signing-keys-reload").start(() -> {
                try {
                    reload(clock.instant());
                } catch (RuntimeException e) {
                    LOG.warning("OAuth signing keys could not be reloaded; the loaded ones stay in use: " + e);
                } finally {
                    backgroundReload.set(false);
                }
            });
        }
        return current.keys().stream().filter(k -> expiresAt(k).isAfter(now)).toList();
    }

    private List<ECKey> reload(Instant now) {
        reloading.lock();
        try {
            return reloadHoldingLock(now);
        } finally {
            reloading.unlock();
        }
    }

    private List<ECKey> reloadHoldingLock(Instant now) {
        List<ECKey> keys = repository.unexpired(now).stream()
                .map(this::open)
                .flatMap(Optional::stream)
                .sorted(Comparator.comparing(SigningKeys::createdAt))
                .toList();
        loaded = new Loaded(keys, now);
        return keys;
    }

    private Optional<ECKey> open(SigningKeyRepository.StoredKey stored) {
        try {
            ECKey key = ECKey.parse(cipher.open(stored.kid(), stored.sealedPrivateJwk()));
            return Optional.of(new ECKey.Builder(key)
                    .issueTime(Date.from(stored.createdAt()))
                    .expirationTime(Date.from(stored.expiresAt()))
                    .build());
        } catch (ParseException | RuntimeException e) {
            LOG.severe("OAuth signing key " + stored.kid() + " cannot be opened (wrong key-encryption key?); skipped");
            return Optional.empty();
        }
    }

    private SigningKeyRepository.StoredKey generate(Instant at) {
        // milliseconds: what a JWK's iat keeps, so the stored and the loaded creation times agree
        Instant now = at.truncatedTo(ChronoUnit.MILLIS);
        String kid = UUID.randomUUID().toString();
        try {
            ECKey key = new ECKeyGenerator(Curve.P_256)
                    .keyID(kid)
                    .algorithm(JWSAlgorithm.ES256)
                    .keyUse(KeyUse.SIGNATURE)
                    .generate();
            return new SigningKeyRepository.StoredKey(
                    kid,
                    JWSAlgorithm.ES256.getName(),
                    cipher.seal(kid, key.toJSONString()),
                    key.toPublicJWK().toJSONString(),
                    now,
                    now.plus(publishFor));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot make an EC P-256 key", e);
        }
    }

    private static Instant createdAt(ECKey key) {
        return key.getIssueTime().toInstant();
    }

    private static Instant expiresAt(ECKey key) {
        return key.getExpirationTime().toInstant();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
