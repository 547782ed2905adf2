package io.sluice.s3;

import io.sluice.config.S3Config;
import io.sluice.config.S3Config.EnvCredentials;
import io.sluice.config.StorageConfig;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3 server in this JVM, for tests, benchmarks and local runs: S3Proxy (from Maven Central)
 * on a free loopback port, with its filesystem backend, so that every object is a plain file at
 * {@code <dir>/<bucket>/<key>} that any local tool can read. Requests are signed (AWS V2 or V4)
 * with a key pair made up for each server.
 *
 * <p>Its limits are the backend's: a key cannot be both an object and a prefix of other keys
 * ({@code a} and {@code a/b}), because the first is a file and the second needs a directory; and
 * multipart uploads in progress are hidden files {@code .mpus-*} in the bucket's directory.
 *
 * <p>It counts the requests it serves by the backend operation they become ({@link #operations}),
 * so that a test can check how many round trips a read or a write costs.
 */
public final class LocalS3 implements AutoCloseable {

    /** The variable that {@link #env()} puts the access key in. */
    public static final String ACCESS_KEY_ENV = "SLUICE_S3_ACCESS_KEY";

    /** The variable that {@link #env()} puts the secret key in. */
    public static final String SECRET_KEY_ENV = "SLUICE_S3_SECRET_KEY";

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

    private final Path dir;
    private final String bucket;
    private final String accessKey;
    private final String secretKey;
    private final S3Proxy proxy;
    private final Map<String, LongAdder> operations;

    private LocalS3(
            Path dir,
            String bucket,
            String accessKey,
            String secretKey,
            S3Proxy proxy,
            Map<String, LongAdder> operations) {
        this.dir = dir;
        this.bucket = bucket;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.proxy = proxy;
        this.operations = operations;
    }

    /**
     * Starts a server whose objects live under {@code dir}, with {@code bucket} in it (kept with
     * its objects if it is there already).
     *
     * @param bucket a bucket name without dots (they would need virtual-host addressing rules)
     */
    public static LocalS3 start(Path dir, String bucket) throws IOException {
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("not a bucket name: '" + bucket + "'");
        }
        Path base = dir.toAbsolutePath().normalize();
        // A bucket of the filesystem backend is a directory.
        Files.createDirectories(base.resolve(bucket));
        String accessKey = "sluice-" + randomHex(4);
        String secretKey = randomHex(20);
        Map<String, LongAdder> operations = new ConcurrentHashMap<>();
        S3Proxy proxy =
                S3Proxy.builder()
                        .blobStore(
                                counted(new FilesystemNio2BlobStore(base.toString()), operations))
                        .endpoint(URI.create("http://127.0.0.1:0"))
                        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
                        .jettyMaxThreads(16)
                        // Tests stop it after their requests are done; don't wait on idle ones.
                        .stopTimeout(0)
                        .build();
        try {
            proxy.start();
        } catch (Exception e) {
            throw new IOException("S3Proxy did not start", e);
        }
        if (!"STARTED".equals(proxy.getState())) {
            stopQuietly(proxy);
            throw new IOException("S3Proxy did not start: " + proxy.getState());
        }
        return new LocalS3(base, bucket, accessKey, secretKey, proxy, operations);
    }

    /**
     * How many times each operation of the backend has run since the server started, by the name
     * S3Proxy's {@code BlobStore} gives it: {@code getBlob} for a GET, {@code blobMetadata} for a
     * HEAD, {@code list} for a LIST, {@code putBlob} for a PUT, {@code removeBlob} and {@code
     * removeBlobs} for a DELETE and a multi-object delete, {@code initiateMultipartUpload}, {@code
     * uploadMultipartPart} and {@code completeMultipartUpload} for a multipart upload's requests.
     * The server's own capability queries ({@code supports…}) are left out.
     */
    public Map<String, Long> operations() {
        Map<String, Long> counts = new TreeMap<>();
        operations.forEach((name, count) -> counts.put(name, count.sum()));
        return counts;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    public String bucket() {
        return bucket;
    }

    /** The directory that holds the buckets. */
    public Path dir() {
        return dir;
    }

    /** The directory that holds the bucket's objects. */
    public Path bucketDir() {
        return dir.resolve(bucket);
    }

    /** The plain file that holds object {@code key} of the bucket. */
    public Path objectFile(String key) {
        return bucketDir().resolve(key);
    }

    /** {@code s3://<bucket>/<key>}. */
    public URI uri(String key) {
        return URI.create("s3://" + bucket + "/" + key);
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** The key pair under {@link #ACCESS_KEY_ENV} and {@link #SECRET_KEY_ENV}. */
    public Map<String, String> env() {
        return Map.of(ACCESS_KEY_ENV, accessKey, SECRET_KEY_ENV, secretKey);
    }

    /** {@code storage.s3} for this server: its endpoint, path-style, keys from {@link #env()}. */
    public S3Config s3Config() {
        return s3Config(endpoint());
    }

    /**
     * {@code storage.s3} for a server of this kind at {@code endpoint}, such as this one seen from
     * another JVM: path-style, keys from the environment variables {@link #env()} sets.
     */
    public static S3Config s3Config(URI endpoint) {
        return new S3Config(
                Optional.of(endpoint),
                Optional.of("us-east-1"),
                true,
                Optional.of(new EnvCredentials(ACCESS_KEY_ENV, SECRET_KEY_ENV)));
    }

    /** A lake rooted at {@code s3://<bucket>/<prefix>} on this server. */
    public StorageConfig storage(String prefix) {
        return new StorageConfig(uri(prefix), Optional.of(s3Config()));
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IOException("S3Proxy did not stop", e);
        }
    }

    /** {@code store}, counting each call of an operation in {@code operations}. */
    private static BlobStore counted(BlobStore store, Map<String, LongAdder> operations) {
        // A dynamic proxy: BlobStore has some fifty methods, each only to be counted and passed on.
        return (BlobStore)
                Proxy.newProxyInstance(
                        LocalS3.class.getClassLoader(),
                        new Class<?>[] {BlobStore.class},
                        (self, method, args) -> {
                            if (method.getDeclaringClass() != Object.class
                                    && !method.getName().startsWith("supports")) {
                                operations
                                        .computeIfAbsent(method.getName(), n -> new LongAdder())
                                        .increment();
                            }
                            try {
                                return method.invoke(store, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static void stopQuietly(S3Proxy proxy) {
        try {
            proxy.stop();
        } catch (Exception e) {
            // Already failing; the start error is the one to report.
        }
    }
}
