package io.sluice.event;

/**
 * Strict text checks for the decoders: well-formed UTF-8 bytes (no overlong forms, no encoded
 * surrogates, nothing above U+10FFFF) and no lone UTF-16 surrogates in decoded strings. A lenient
 * decoder would replace such input with '?' or U+FFFD, so that distinct ids could collide.
 */
public final class StrictText {

    private StrictText() {}

    /**
     * The offset of the first byte of an ill-formed UTF-8 sequence, or -1 if all are well formed.
     */
    static int invalidUtf8(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xff;
            int n;
            int lo = 0x80;
            int hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) {
                n = 1;
            } else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                if (c == 0xe0) {
                    lo = 0xa0;
                } else if (c == 0xed) {
                    hi = 0x9f;
                }
            } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                if (c == 0xf0) {
                    lo = 0x90;
                } else if (c == 0xf4) {
                    hi = 0x8f;
                }
            } else {
                return i;
            }
            if (i + n >= to) {
                return i;
            }
            int second = b[i + 1] & 0xff;
            if (second < lo || second > hi) {
                return i;
            }
            for (int k = 2; k <= n; k++) {
                if ((b[i + k] & 0xc0) != 0x80) {
                    return i;
                }
            }
            i += n + 1;
        }
        return -1;
    }

    /**
     * The index of the first unpaired surrogate in {@code s}, or -1 if there is none. Such a string
     * has no UTF-8 form: encoders write '?' for the surrogate, so it would be another key.
     */
    public static int loneSurrogate(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < n
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}
