package io.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the locations people write (a plain path, {@code file:relative/path}, {@code
 * s3://bucket/prefix}) into absolute URIs without a trailing slash, so that the directory a job was
 * started from never changes where it reads or writes.
 */
final class Locations {
    private static final Pattern SCHEME = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*):.*");
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private Locations() {}

    /**
     * A lake location: {@code file:} URI, {@code s3://} URI or plain path. Relative paths resolve
     * against {@code baseDir}.
     *
     * @throws IllegalArgumentException with a message fit to follow the key path
     */
    static URI fileOrS3(String text, Path baseDir) {
        String scheme = scheme(text);
        if (scheme == null || scheme.equals("file")) {
            return file(text, baseDir);
        }
        if (scheme.equals("s3")) {
            return s3(text);
        }
        throw new IllegalArgumentException(
                "unsupported scheme '"
                        + scheme
                        + "' (use file:<path>, s3://bucket/prefix or a plain path)");
    }

    /**
     * A local file: {@code file:} URI or plain path, relative ones resolved against {@code
     * baseDir}.
     *
     * @throws IllegalArgumentException with a message fit to follow the key path
     */
    static URI localFile(String text, Path baseDir) {
        String scheme = scheme(text);
        if (scheme != null && !scheme.equals("file")) {
            throw new IllegalArgumentException(
                    "must be a local path or file: URI, got scheme '" + scheme + "'");
        }
        return file(text, baseDir);
    }

    /** {@code root/seg1/seg2...}; segments must be identifiers so nothing can escape the root. */
    static URI child(URI root, String... segments) {
        StringBuilder s = new StringBuilder(root.toString());
        for (String segment : segments) {
            if (segment == null || !Names.isIdentifier(segment)) {
                throw new IllegalArgumentException(
                        "'" + segment + "' is not a valid path segment: " + Names.IDENTIFIER_RULE);
            }
            if (s.charAt(s.length() - 1) != '/') {
                s.append('/');
            }
            s.append(segment);
        }
        return URI.create(s.toString());
    }

    private static String scheme(String text) {
        Matcher m = SCHEME.matcher(text);
        return m.matches() ? m.group(1) : null;
    }

    private static URI file(String text, Path baseDir) {
        String rest = text.startsWith("file:") ? text.substring("file:".length()) : text;
        if (rest.isBlank()) {
            throw new IllegalArgumentException("must not be an empty path");
        }
        Path path;
        try {
            // file:///abs and file://localhost/abs are real URIs; file:rel and file:/abs are paths.
            path =
                    rest.startsWith("//") && text.startsWith("file:")
                            ? Path.of(new URI(text))
                            : Path.of(rest);
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalArgumentException("is not a valid file location: " + e.getMessage());
        }
        return withoutTrailingSlash(baseDir.resolve(path).toAbsolutePath().normalize().toUri());
    }

    private static URI s3(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("is not a valid s3 URI: " + e.getReason());
        }
        // The authority, not the host: it also catches credentials pasted in as user info.
        String bucket = uri.getAuthority();
        if (bucket == null || !BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException(
                    "needs a valid bucket name, as in s3://bucket/prefix");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("s3 URI must not have a query or fragment");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        if (path.contains("//") || path.matches(".*/\\.{1,2}(/.*)?")) {
            throw new IllegalArgumentException(
                    "s3 prefix must not contain empty, '.' or '..' segments");
        }
        return withoutTrailingSlash(uri);
    }

    private static URI withoutTrailingSlash(URI uri) {
        String s = uri.toString();
        boolean fileSystemRoot = "file".equals(uri.getScheme()) && "/".equals(uri.getPath());
        if (s.endsWith("/") && !fileSystemRoot) {
            return URI.create(s.substring(0, s.length() - 1));
        }
        return uri;
    }
}
