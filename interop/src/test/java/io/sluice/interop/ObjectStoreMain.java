package io.sluice.interop;

import io.sluice.s3.LocalS3;
import java.nio.file.Path;

/**
 * Runs an S3-compatible server ({@link LocalS3}: S3Proxy, its objects plain files under a
 * directory) in a JVM of its own, as an object store is a service of its own: prints {@code
 * <endpoint> <access key> <secret key>} and serves until its standard input closes.
 */
public final class ObjectStoreMain {

    private ObjectStoreMain() {}

    /** {@code DIR BUCKET}. */
    public static void main(String[] args) throws Exception {
        try (LocalS3 s3 = LocalS3.start(Path.of(args[0]), args[1])) {
            System.out.println(s3.endpoint() + " " + s3.accessKey() + " " + s3.secretKey());
            System.out.flush();
            while (System.in.read() != -1) {
                // Until the test closes the pipe, or dies.
            }
        }
    }
}
