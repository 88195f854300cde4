package io.tickreel;

import java.nio.ByteBuffer;

/**
 * The native methods, bound by the library's {@code JNI_OnLoad} with {@code RegisterNatives}
 * (never by JNI name mangling, so the package may be relocated). Signatures use JDK types only.
 * Handles are {@code long}s into the library's handle registry; {@code 0} is never valid.
 * Callers must have called {@link NativeLoader#ensureLoaded()} first.
 */
final class NativeBridge {
    /** Must equal the library's {@code ABI_VERSION} (native/jni/mod.rs). */
    static final int ABI_VERSION = 1;

    private NativeBridge() {}

    static native int abiVersion();

    static native String libraryVersion();

    /** Closes any handle; closing twice or a stale handle is harmless. */
    static native void close(long handle);

    // --- ReplayWriter (native/jni/writer.rs) ---

    static native long writerCreate(String path, long[] options);

    static native void writerTick(long handle, int tick, ByteBuffer batch, int offset, int length);

    static native void writerSnapshot(long handle, byte[] snapshot);

    static native void writerRegisterEntity(
            long handle, int id, int kind, boolean hasUuid, long uuidMsb, long uuidLsb, String name);

    static native void writerRegisterEventType(long handle, int id, String name, int version);

    static native void writerPutMetadata(long handle, byte[] nbtCompound);

    static native long writerFinish(long handle);

    // --- Replay (native/jni/replay.rs) ---

    static native long replayOpen(String path);

    static native long[] replayInfo(long handle);

    static native byte[] replayMetadata(long handle);

    static native long[] replaySeek(long handle, int tick);

    static native long[] replayVerify(long handle);

    static native byte[] replayTicks(long handle, int from, int to);
}
