package io.tickreel;

import java.nio.ByteBuffer;

/**
 * The native methods, bound by the library's {@code JNI_OnLoad} with {@code RegisterNatives}
 * (never by JNI name mangling, so the package may be relocated). Signatures use JDK types only.
 * Handles are {@code long}s into the library's handle registry; {@code 0} is never valid.
 * Callers must have called {@link NativeLoader#ensureLoaded()} first.
 *
 * <p>Everything below the {@code @generated-begin} marker is generated from the operations declared
 * once in native/bridge/api/ (the same definitions give the C functions of include/tickreel.h); a
 * test of the library checks this file and rewrites it with {@code TICKREEL_BLESS=1}.
 */
final class NativeBridge {
    private NativeBridge() {}

    /**
     * A pin of a direct buffer (hand-written, native/bridge/jni/pinned.rs): its handle, closed with
     * {@link #close(long)}, stands for the buffer in the {@code ...Pinned} variant of each method
     * taking a {@code ByteBuffer} range, which then reads the buffer without calling back into the
     * JVM. The pin keeps the buffer reachable until it is closed.
     */
    static native long pinDirect(ByteBuffer buffer);

    /** Test hook: holds the engine's writer threads while {@code stalled} (hand-written, bound only with test-hooks). */
    static native void engineSetWritersStalled(long handle, boolean stalled);

    // @generated-begin
    // Generated from native/bridge/api/ (see native/bridge/codegen/jni.rs): do not edit by hand;
    // `TICKREEL_BLESS=1 cargo test -p tickreel-bridge --lib generated` rewrites this part.

    /** Must equal the library's (native/bridge/api/library.rs). */
    static final int ABI_VERSION = 12;

    // --- catalog (feature "catalog"; native/bridge/api/catalog.rs documents each) ---
    static native long catalogOpen(String url);
    static native long catalogRegister(long catalog, String file, String course, long[] player, String playerName, int entity, int[] range);
    static native long catalogTop(long catalog, String course, int n);
    static native long catalogPersonalBest(long catalog, String course, long[] player);
    static native long catalogAround(long catalog, String course, int rank, int k);
    static native long catalogRecent(long catalog, long[] player, String course, int n);
    static native long catalogSumOfBest(long catalog, String course, long[] player);
    static native long catalogLoadGhost(long catalog, String course, int rank, long[] player);
    static native long catalogPrune(long catalog, boolean dryRun);
    static native byte[] pendingTakeRows(long pending);
    static native long pendingTakeGhostSet(long pending);
    static native long catalogLoadGhosts(long catalog, String course, int top, long[] player, int rank);

    // --- catalog_admin (feature "catalog"; native/bridge/api/catalog_admin.rs documents each) ---
    static native long catalogAddReport(long catalog, long[] reported, String reportedName, long[] reporter, String reason, String recording);
    static native long catalogReports(long catalog, int which);
    static native long catalogSetReportOpen(long catalog, long reportId, boolean open);
    static native long catalogSetRunValid(long catalog, long runId, boolean valid);
    static native long catalogCheckRun(long catalog, long runId);
    static native long catalogRunCheck(long catalog, long runId);
    static native long catalogClearRun(long catalog, long runId, String by);
    static native long catalogSetCourseLimits(long catalog, String course, String movement, double horizontalTick, double horizontalSecond, double upTick, double downTick, double upSecond, double downSecond, int checkpoints);
    static native long catalogSetRetention(long catalog, String scope, int keepTop, boolean keepPersonalBests, int keepDays, boolean keepOpenReports);
    static native long catalogClearRetention(long catalog, String scope);
    static native long catalogRetention(long catalog);
    static native long catalogRegisterFinished(long catalog, long finish, String course, long[] player, String playerName, int entity, int[] range);

    // --- catalog_network (feature "catalog"; native/bridge/api/catalog_network.rs documents each) ---
    static native long catalogTopOn(long catalog, String server, long[] world, long[] worldVersion, String course, int n);
    static native long catalogPersonalBestOn(long catalog, String server, long[] world, long[] worldVersion, String course, long[] player);
    static native long catalogAtRankOn(long catalog, String server, long[] world, long[] worldVersion, String course, int rank);
    static native long catalogLoadGhostOn(long catalog, String server, long[] world, long[] worldVersion, String course, int rank, long[] player, long[] playingWorld, long[] playingVersion, boolean allowOtherVersion);
    static native long catalogReportsOf(long catalog, long[] player, String server);
    static native long catalogOpenRecording(long catalog, String location);
    static native long catalogRegisterAt(long catalog, String location, String course, long[] player, String playerName, int entity, int[] range);

    // --- catalog_object (feature "catalog" + "object"; native/bridge/api/catalog_object.rs documents each) ---
    static native long catalogRegisterUpload(long catalog, long upload, String course, long[] player, String playerName, int entity, int[] range);

    // --- dictionary (native/bridge/api/dictionary.rs documents each) ---
    static native long dictionaryRegister(byte[] bytes);
    static native boolean dictionaryIsRegistered(int id);

    // --- engine (native/bridge/api/engine.rs documents each) ---
    static native long engineNew(long options);
    static native void engineClose(long engine);
    static native long[] engineStats(long engine);
    static native long recorderStart(long engine, String path, long options);
    static native long recorderStartOn(long engine, String server, String path, long options);
    static native boolean recorderSubmit(long recorder, int tick, ByteBuffer batch, int batchOffset, int batchLength);
    static native boolean recorderSubmitPinned(long recorder, int tick, long batch, int batchOffset, int batchLength);
    static native void recorderPlayerLeft(long recorder, int entity);
    static native void recorderSnapshot(long recorder, byte[] bytes);
    static native void recorderTerrain(long recorder, long[] sections);
    static native void recorderRegisterEntity(long recorder, int entity, int kind, long[] uuid, String name);
    static native void recorderRegisterEventType(long recorder, int typeId, String name, int version);
    static native void recorderRegisterName(long recorder, int kind, int id, String name);
    static native void recorderSetUserMetadata(long recorder, byte[] nbt);
    static native void recorderFlush(long recorder);
    static native long[] recorderStats(long recorder);
    static native long recorderWaitResumed(long recorder, int timeoutMs);
    static native Object recorderStatus(long recorder);
    static native long recorderFinish(long recorder);
    static native void recorderAbort(long recorder);

    // --- engine_options (native/bridge/api/engine_options.rs documents each) ---
    static native long engineOptionsNew();
    static native void engineOptionsSetWriterThreads(long options, int writerThreads);
    static native void engineOptionsSetQueueCapacity(long options, long queueCapacity);
    static native void engineOptionsSetMaxInflightBytes(long options, long maxInflightBytes);
    static native void engineOptionsSetPoolBuffers(long options, long poolBuffers);
    static native void engineOptionsSetShadowBudgetBytes(long options, long shadowBudgetBytes);

    // --- ghost (native/bridge/api/ghost.rs documents each) ---
    static native long ghostLoad(String path, int entity, int[] range);
    static native double[] ghostInfo(long ghost);
    static native long[] ghostSplits(long ghost);
    static native long ghostCursorNew(long ghost);
    static native void ghostCursorSample(long cursor, double t, double[] out);
    static native void ghostCursorSetTimeShift(long cursor, double ticks);
    static native long liveDeltaNew(long ghost);
    static native double liveDeltaUpdate(long delta, double liveT, double x, double y, double z, double[] out);
    static native void liveDeltaSetTimeShift(long delta, double ticks);
    static native void liveDeltaReset(long delta);
    static native long ghostLoadAsync(String path, int entity, int[] range);
    static native long ghostSetNew();
    static native long ghostSetPush(long set, long ghost);
    static native long ghostSetLen(long set);
    static native long ghostSetDuration(long set, int index);
    static native void ghostSetSetTimeShift(long set, int index, double ticks);
    static native long ghostSetSample(long set, double t, double[] out);
    static native long goldSplitsNew(int[] route, int[] gold, double tickRate);
    static native void goldSplitsCheckpoint(long splits, int checkpoint, double liveTicks, double[] out);
    static native void goldSplitsFinish(long splits, double liveTicks, double[] out);
    static native double goldSplitsBestPossible(long splits, double liveTicks);
    static native long goldSplitsSumOfBest(long splits);
    static native long goldSplitsGold(long splits, long[] gold);
    static native void goldSplitsReset(long splits);
    static native long pendingTakeGhost(long pending);

    // --- library (native/bridge/api/library.rs documents each) ---
    static native int abiVersion();
    static native String libraryVersion();
    static native long features();
    static native void close(long handle);

    // --- object (feature "object"; native/bridge/api/object.rs documents each) ---
    static native long objectOptionsNew();
    static native void objectOptionsSetEndpoint(long options, String endpoint);
    static native void objectOptionsSetRegion(long options, String region);
    static native void objectOptionsSetCredentials(long options, String accessKeyId, String secretAccessKey, String sessionToken);
    static native void objectOptionsSetAllowHttp(long options, boolean allow);
    static native void objectOptionsSetTimeouts(long options, int connectMs, int requestMs, int deadlineMs);
    static native void objectOptionsSetRetries(long options, int retries, int backoffInitialMs, int backoffMaxMs);
    static native long readerOpenUrl(String location, long options);
    static native long playheadOpenUrl(String location, long options, int startTick);
    static native long ghostLoadAsyncUrl(String location, long options, int entity, int[] range);
    static native long recorderFinishUpload(long recorder, String url, long options, boolean overwrite, boolean removeLocal);
    static native long shadowBufferReportUpload(long shadow, int player, String path, long options, String[] metadata, String url, long objectOptions, boolean uploadOverwrite, boolean removeLocal);
    static native byte[] pendingTakeUpload(long pending);

    // --- object_live (feature "object"; native/bridge/api/object_live.rs documents each) ---
    static native long recorderShipLive(long recorder, String url, long options, int intervalMs);
    static native long[] liveShipperStats(long shipper);
    static native void liveShipperShipNow(long shipper);
    static native long liveShipperFinish(long shipper, long recorder, boolean overwrite, boolean removeLocal);
    static native long playheadFollowUrl(String location, long options, int startTick);

    // --- pending (native/bridge/api/pending.rs documents each) ---
    static native boolean pendingPoll(long pending);
    static native boolean pendingWait(long pending, long timeoutMs);
    static native String pendingTakePath(long pending);

    // --- playhead (native/bridge/api/playhead.rs documents each) ---
    static native long playheadOpen(String path, int startTick);
    static native long playheadFollow(String path, int startTick);
    static native void playheadCurrent(long playhead, long[] out);
    static native void playheadAdvance(long playhead, long[] out);
    static native void playheadSeek(long playhead, int tick, long[] out);
    static native void playheadStepForward(long playhead, long[] out);
    static native void playheadStepBack(long playhead, long[] out);
    static native void playheadPlay(long playhead);
    static native void playheadPause(long playhead);
    static native void playheadSetSpeed(long playhead, double speed);
    static native void playheadSetReverse(long playhead, boolean reverse);
    static native long playheadPosition(long playhead);
    static native int playheadEntities(long playhead, long[] out);
    static native byte[] playheadTicks(long playhead);
    static native long[] playheadRemoved(long playhead);
    static native long[] playheadAdded(long playhead);
    static native long[] playheadRebuild(long playhead);
    static native byte[] playheadRebuildSnapshot(long playhead);
    static native byte[] playheadRebuildEvents(long playhead);
    static native long playheadWorldState(long playhead);
    static native int playheadWorldChanges(long playhead, long[] out);

    // --- reader (native/bridge/api/reader.rs documents each) ---
    static native long readerOpen(String path);
    static native long[] readerInfo(long reader);
    static native byte[] readerMetadata(long reader);
    static native long[] readerSeek(long reader, int tick);
    static native byte[] readerTicks(long reader, int from, int to);
    static native long[] readerVerify(long reader);
    static native String readerPaletteName(long reader, int kind, int id);
    static native long readerWorldAt(long reader, int tick);

    // --- recorder_options (native/bridge/api/recorder_options.rs documents each) ---
    static native long recorderOptionsNew();
    static native void recorderOptionsSetTickRateMillihz(long options, int tickRateMillihz);
    static native void recorderOptionsSetGameDataVersion(long options, int gameDataVersion);
    static native void recorderOptionsSetTimestampMs(long options, long timestampMs);
    static native void recorderOptionsSetWorldId(long options, long[] worldId);
    static native void recorderOptionsSetWorldVersion(long options, long[] worldVersion);
    static native void recorderOptionsSetDictionaryId(long options, int dictionaryId);
    static native void recorderOptionsSetChunkTicks(long options, int chunkTicks);
    static native void recorderOptionsSetChunkBytes(long options, long chunkBytes);
    static native void recorderOptionsSetSnapshotInterval(long options, int snapshotInterval);
    static native void recorderOptionsSetZstdLevel(long options, int zstdLevel);
    static native void recorderOptionsSetFlushInterval(long options, long flushInterval);
    static native void recorderOptionsSetFlushMaxPendingBytes(long options, long flushMaxPendingBytes);
    static native void recorderOptionsSetFlushOnPlayerLeave(long options, boolean flushOnPlayerLeave);
    static native void recorderOptionsSetBackpressure(long options, int backpressure);
    static native void recorderOptionsSetBlockDeadline(long options, long blockDeadline);
    static native void recorderOptionsSetCompactionZstdLevel(long options, int compactionZstdLevel);
    static native void recorderOptionsSetCompactionChunkTicks(long options, int compactionChunkTicks);
    static native void recorderOptionsSetCompactionVerify(long options, boolean compactionVerify);
    static native void recorderOptionsSetMaxBatchBytes(long options, long maxBatchBytes);
    static native void recorderOptionsSetOverwrite(long options, boolean overwrite);
    static native void recorderOptionsSetOnExisting(long options, int onExisting);

    // --- reel_options (native/bridge/api/reel_options.rs documents each) ---
    static native long reelOptionsNew();
    static native void reelOptionsSetTickRateMillihz(long options, int tickRateMillihz);
    static native void reelOptionsSetGameDataVersion(long options, int gameDataVersion);
    static native void reelOptionsSetTimestampMs(long options, long timestampMs);
    static native void reelOptionsSetWorldId(long options, long[] worldId);
    static native void reelOptionsSetWorldVersion(long options, long[] worldVersion);
    static native void reelOptionsSetDictionaryId(long options, int dictionaryId);
    static native void reelOptionsSetChunkTicks(long options, int chunkTicks);
    static native void reelOptionsSetChunkBytes(long options, long chunkBytes);
    static native void reelOptionsSetSnapshotInterval(long options, int snapshotInterval);
    static native void reelOptionsSetZstdLevel(long options, int zstdLevel);

    // --- report_options (native/bridge/api/report_options.rs documents each) ---
    static native long reportOptionsNew();
    static native void reportOptionsSetBefore(long options, long before);
    static native void reportOptionsSetAfter(long options, long after);
    static native void reportOptionsSetRadius(long options, double radius);
    static native void reportOptionsSetEveryEntity(long options, boolean everyEntity);
    static native void reportOptionsSetOverwrite(long options, boolean overwrite);
    static native void reportOptionsSetZstdLevel(long options, int zstdLevel);
    static native void reportOptionsSetKeepAllBlocks(long options, boolean keepAllBlocks);
    static native void reportOptionsSetChat(long options, int chat);

    // --- shadow (native/bridge/api/shadow.rs documents each) ---
    static native long[] shadowBufferStart(long engine, String path, long recorderOptions, long shadowOptions);
    static native long[] shadowBufferStartOn(long engine, String server, String path, long recorderOptions, long shadowOptions);
    static native long shadowBufferReport(long shadow, int player, String path, long options, String[] metadata);
    static native long shadowBufferReportUuid(long shadow, long[] uuid, String path, long options, String[] metadata);
    static native long[] shadowBufferStats(long shadow);
    static native boolean shadowBufferIsAttached(long shadow);

    // --- shadow_options (native/bridge/api/shadow_options.rs documents each) ---
    static native long shadowOptionsNew();
    static native void shadowOptionsSetWindow(long options, long window);
    static native void shadowOptionsSetGrace(long options, long grace);
    static native void shadowOptionsSetMaxBytes(long options, long maxBytes);
    static native void shadowOptionsSetBlockTicks(long options, int blockTicks);

    // --- world_state (native/bridge/api/world_state.rs documents each) ---
    static native long[] worldStateInfo(long world);
    static native long[] worldStateBlocks(long world);
    static native long worldStateBlock(long world, int x, int y, int z);
    static native byte[] worldStateBlockEntity(long world, int x, int y, int z);
    static native long[] worldStateEntities(long world);
    static native long[] worldStateEquipment(long world);
    static native long[] worldStateTerrainSections(long world);

    // --- writer (native/bridge/api/writer.rs documents each) ---
    static native long reelWriterCreate(String path, long options);
    static native void reelWriterTick(long writer, int tick, ByteBuffer batch, int batchOffset, int batchLength);
    static native void reelWriterTickPinned(long writer, int tick, long batch, int batchOffset, int batchLength);
    static native void reelWriterSnapshot(long writer, byte[] bytes);
    static native void reelWriterTerrain(long writer, long[] sections);
    static native void reelWriterRegisterEntity(long writer, int entity, int kind, long[] uuid, String name);
    static native void reelWriterRegisterEventType(long writer, int typeId, String name, int version);
    static native void reelWriterRegisterName(long writer, int kind, int id, String name);
    static native void reelWriterSetUserMetadata(long writer, byte[] nbt);
    static native long reelWriterFinish(long writer);
    static native long quantityCheck(int quantity, String what, double value);
    // @generated-end
}
