package io.sluice.lake;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Hex SHA-256 digests, as the lake records them: the landing manifest a warehouse hour was built
 * from, the bucket files' names, training-set artifacts, dead letters' originals.
 */
public final class Sha256 {

    private Sha256() {}

    /** The digest of {@code bytes}, as 64 lower-case hex digits. */
    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(newDigest().digest(bytes));
    }

    /** The digest of a file's bytes, read as a stream, as 64 lower-case hex digits. */
    public static String hex(Path file) throws IOException {
        MessageDigest sha = newDigest();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
