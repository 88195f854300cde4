package io.tickreel;

/**
 * An error reported by tickreel: I/O, a corrupt or truncated file, an exceeded limit, an
 * unsupported version, a locked recording, backpressure, the catalog's database, or a failure to
 * load the native library.
 *
 * <p>Misuse is reported with the JDK's own exceptions instead: {@link IllegalStateException} for
 * a closed or finished handle, {@link IllegalArgumentException} for bad arguments (including a
 * malformed tick batch or a buffer that is not direct). The exception is unchecked so that a
 * server's tick loop can decide where to catch it; {@link #kind()} says what went wrong.
 *
 * <p>An {@link Kind#IO} error reads as java.nio's ({@code "/runs/a.reel: No such file or
 * directory"}) and its {@link #getCause() cause} is the {@code java.nio.file} exception the JDK
 * would have thrown for it: {@link java.nio.file.NoSuchFileException},
 * {@link java.nio.file.AccessDeniedException}, {@link java.nio.file.FileAlreadyExistsException},
 * {@link java.nio.file.NotDirectoryException}, {@link java.nio.file.DirectoryNotEmptyException},
 * else {@link java.nio.file.FileSystemException}, with the same file and reason.
 */
public class TickreelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * What went wrong, as a stable category. Each kind's {@link #code()} is the library's one
     * number for that error in every language: the C result code of the same name
     * ({@code TICKREEL_RESULT_LOCKED} is {@code LOCKED}, 8; {@code TICKREEL_RESULT_PANIC} is
     * {@code INTERNAL}, 102). Codes up to 0.1 numbered these kinds differently (LOCKED was 6,
     * INVALID_ARGUMENT 11); they now take C's numbers, which never change.
     */
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
        /** An invalid argument reported by the core where an exception type was not mapped. */
        INVALID_ARGUMENT(6),
        /** An invalid state reported by the core where an exception type was not mapped. */
        INVALID_STATE(7),
        /** Another writer holds the recording's lock. */
        LOCKED(8),
        /** The writer could not keep up and the backpressure policy refused the tick. */
        BACKPRESSURE(9),
        /** Data is not available yet. */
        NOT_READY(10),
        /** Metadata (NBT) could not be encoded or decoded. */
        METADATA(11),
        /** The catalog's database failed (SQLite or PostgreSQL): the message never carries credentials. */
        DATABASE(12),
        /** An internal error of the library (a bug: please report it), C's {@code TICKREEL_RESULT_PANIC}. */
        INTERNAL(102),
        /** The native library could not be found, extracted, loaded or bound (Java only). */
        LIBRARY(200);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The number of this kind, shared with the C result codes (see {@link Kind}). */
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
    /** The file an I/O error happened on, or null. */
    private final String path;

    /**
     * Creates an exception.
     *
     * @param kind what went wrong
     * @param message a description
     */
    public TickreelException(Kind kind, String message) {
        super(message);
        this.kind = kind;
        this.path = null;
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
        this.path = null;
    }

    /** An exception of the kind numbered {@code code}, without a path. */
    TickreelException(String message, int code) {
        this(message, code, null, null, null);
    }

    /**
     * Called by the native library (the signature is part of the JNI contract). For an I/O error,
     * {@code nio} names the {@code java.nio.file} exception that becomes the cause (built from
     * the path and the operating system's {@code reason}), as the JDK would have thrown it.
     */
    TickreelException(String message, int code, String path, String nio, String reason) {
        super(message, nio == null ? null : nioCause(nio, path, reason));
        this.kind = Kind.of(code);
        this.path = path;
    }

    /** The java.nio.file exception named {@code nio}, about {@code file}. */
    private static java.nio.file.FileSystemException nioCause(String nio, String file, String reason) {
        switch (nio) {
            case "NoSuchFile":
                return new java.nio.file.NoSuchFileException(file, null, reason);
            case "AccessDenied":
                return new java.nio.file.AccessDeniedException(file, null, reason);
            case "FileAlreadyExists":
                return new java.nio.file.FileAlreadyExistsException(file, null, reason);
            case "NotDirectory":
                return new java.nio.file.NotDirectoryException(file);
            case "DirectoryNotEmpty":
                return new java.nio.file.DirectoryNotEmptyException(file);
            default:
                return new java.nio.file.FileSystemException(file, null, reason);
        }
    }

    /** What went wrong. */
    public Kind kind() {
        return kind;
    }

    /**
     * The file or directory an {@link Kind#IO} error happened on (a recording's live directory or
     * one of its files, the final file), if the error names one.
     *
     * @return the path, or empty for errors that are not about one file
     */
    public java.util.Optional<java.nio.file.Path> path() {
        return java.util.Optional.ofNullable(path).map(java.nio.file.Path::of);
    }
}
