package io.tickreel;

/**
 * An error reported by tickreel: I/O, a corrupt or truncated file, an exceeded limit, an
 * unsupported version, a locked recording, backpressure, or a failure to load the native library.
 *
 * <p>Misuse is reported with the JDK's own exceptions instead: {@link IllegalStateException} for
 * a closed or finished handle, {@link IllegalArgumentException} for bad arguments (including a
 * malformed tick batch or a buffer that is not direct). The exception is unchecked so that a
 * server's tick loop can decide where to catch it; {@link #kind()} says what went wrong.
 */
public class TickreelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as a stable category. */
    public enum Kind {
        /** An operating-system I/O error (file missing, disk full, permission denied). */
        IO(1),
        /** The bytes are not a valid tickreel structure (bad magic, bad checksum). */
        CORRUPT(2),
        /** The data ends before the structure does. */
        TRUNCATED(3),
        /** A length exceeds a configured limit. */
        LIMIT_EXCEEDED(4),
        /** The file uses a format or data version this build does not understand. */
        UNSUPPORTED(5),
        /** Another writer holds the recording's lock. */
        LOCKED(6),
        /** The writer could not keep up and the backpressure policy refused the tick. */
        BACKPRESSURE(7),
        /** Data is not available yet. */
        NOT_READY(8),
        /** Metadata (NBT) could not be encoded or decoded. */
        METADATA(9),
        /** An internal error of the library (a bug: please report it). */
        INTERNAL(10),
        /** An invalid argument reported by the core where an exception type was not mapped. */
        INVALID_ARGUMENT(11),
        /** An invalid state reported by the core where an exception type was not mapped. */
        INVALID_STATE(12),
        /** The native library could not be found, extracted, loaded or bound. */
        LIBRARY(13);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The numeric code used by the native library. */
        public int code() {
            return code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return INTERNAL;
        }
    }

    private final Kind kind;

    /**
     * Creates an exception.
     *
     * @param kind what went wrong
     * @param message a description
     */
    public TickreelException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /**
     * Creates an exception with a cause.
     *
     * @param kind what went wrong
     * @param message a description
     * @param cause the underlying exception
     */
    public TickreelException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** Called by the native library (the signature is part of the JNI contract). */
    TickreelException(String message, int code) {
        this(Kind.of(code), message);
    }

    /** What went wrong. */
    public Kind kind() {
        return kind;
    }
}
