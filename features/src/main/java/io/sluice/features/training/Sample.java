package io.sluice.features.training;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A reproducible, bucket-aligned sample of entities: a pure function of the key, the seed, the
 * fraction and the table's bucket count, so the same entities come out on every run and in every
 * engine that can compute MD5 and the Hive bucket.
 *
 * <p>With {@code B} buckets, {@code n = fraction × B}: the buckets are ranked by {@code
 * md5("<seed>:bucket:<b>")}; the first {@code floor(n)} are taken whole, and of the next one the
 * entities whose {@code md5("<seed>:<key>")} (first 8 bytes, unsigned, over 2^64) is below {@code n
 * − floor(n)}. So a 5% sample of 16 buckets reads one bucket file per hour, not sixteen.
 *
 * @param fraction of the entities, in (0, 1]
 * @param seed any number; another seed gives another sample
 */
public record Sample(double fraction, long seed) implements java.io.Serializable {

    public Sample {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException(
                    "--sample: must be a fraction in (0, 1], got " + fraction);
        }
    }

    /** The buckets whose entities may be selected, in rank order (the last may be partial). */
    public List<Integer> buckets(int buckets) {
        List<Integer> ranked = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            ranked.add(b);
        }
        ranked.sort(
                Comparator.comparing((Integer b) -> unit(seed + ":bucket:" + b), Double::compare)
                        .thenComparing(b -> b));
        double n = fraction * buckets;
        int whole = (int) Math.floor(n);
        int used = n > whole ? whole + 1 : whole;
        return List.copyOf(ranked.subList(0, Math.min(used, buckets)));
    }

    /** A precomputed selector for one bucket count, for many keys. */
    public Selector selector(int buckets) {
        List<Integer> chosen = buckets(buckets);
        double n = fraction * buckets;
        int whole = (int) Math.floor(n);
        boolean[] all = new boolean[buckets];
        int partial = -1;
        for (int i = 0; i < chosen.size(); i++) {
            if (i < whole) {
                all[chosen.get(i)] = true;
            } else {
                partial = chosen.get(i);
            }
        }
        int partialBucket = partial;
        double rest = n - whole;
        return (key, bucket) ->
                all[bucket] || bucket == partialBucket && unit(seed + ":" + key) < rest;
    }

    /** Selection for a fixed bucket count. */
    public interface Selector {
        boolean selects(String key, int bucket);
    }

    /** The first 8 bytes of MD5(text) as an unsigned fraction of 2^64, in [0, 1). */
    static double unit(String text) {
        byte[] d;
        try {
            d = MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (d[i] & 0xff);
        }
        // Unsigned: the top 53 bits as a double in [0, 1).
        return (v >>> 11) * 0x1.0p-53;
    }
}
