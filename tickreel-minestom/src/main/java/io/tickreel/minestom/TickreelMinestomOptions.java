package io.tickreel.minestom;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import net.minestom.server.instance.Instance;

/**
 * What {@link TickreelMinestom#install} records and where: the data folder (recordings under
 * {@code recordings/}, reports under {@code reports/}), the catalog, the server's name, shadow play
 * and the {@code /report} command. Build with {@link #builder(Path)}.
 */
public final class TickreelMinestomOptions {
    final Path dataDir;
    final String catalogUrl;
    final String serverName;
    final Predicate<Instance> recordInstance;
    final Duration shadowWindow;
    final Duration reportBefore;
    final Duration reportAfter;
    final double reportRadius;
    final boolean reportCommand;
    final boolean replayCommand;
    final boolean raceCommand;
    final Duration flushInterval;
    final long shadowBudgetBytes;
    final boolean measureAllocations;
    final int terrainRadius;
    final boolean recoverLeftovers;

    private TickreelMinestomOptions(Builder b) {
        this.dataDir = b.dataDir;
        this.catalogUrl = b.catalogUrl == null ? "sqlite:" + b.dataDir.resolve("catalog.sqlite") : b.catalogUrl;
        this.serverName = b.serverName;
        this.recordInstance = b.recordInstance;
        this.shadowWindow = b.shadowWindow;
        this.reportBefore = b.reportBefore;
        this.reportAfter = b.reportAfter;
        this.reportRadius = b.reportRadius;
        this.reportCommand = b.reportCommand;
        this.replayCommand = b.replayCommand;
        this.raceCommand = b.raceCommand;
        this.flushInterval = b.flushInterval;
        this.shadowBudgetBytes = b.shadowBudgetBytes;
        this.measureAllocations = b.measureAllocations;
        this.terrainRadius = b.terrainRadius;
        this.recoverLeftovers = b.recoverLeftovers;
    }

    /** Options with the data folder {@code dataDir}; every other value has a default. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /** The data folder: {@code recordings/}, {@code reports/} and (by default) {@code catalog.sqlite}. */
    public Path dataDir() {
        return dataDir;
    }

    /** The catalog's URL ({@code sqlite:DATA/catalog.sqlite} unless set). */
    public String catalogUrl() {
        return catalogUrl;
    }

    /** The server's name in recordings, runs and reports. */
    public String serverName() {
        return serverName;
    }

    /** Builds {@link TickreelMinestomOptions}. */
    public static final class Builder {
        private final Path dataDir;
        private String catalogUrl;
        private String serverName = "minestom";
        private Predicate<Instance> recordInstance = instance -> true;
        private Duration shadowWindow = Duration.ofMinutes(5);
        private Duration reportBefore = null;
        private Duration reportAfter = Duration.ofSeconds(30);
        private double reportRadius = 48;
        private boolean reportCommand = true;
        private boolean replayCommand = true;
        private boolean raceCommand = true;
        private Duration flushInterval = Duration.ofSeconds(5);
        private long shadowBudgetBytes = 256L << 20;
        private boolean measureAllocations;
        private int terrainRadius = 2;
        private boolean recoverLeftovers = true;

        private Builder(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir").toAbsolutePath();
        }

        /** The catalog ({@code sqlite:PATH} or {@code postgres://...}); default {@code sqlite:DATA/catalog.sqlite}. */
        public Builder catalog(String url) {
            this.catalogUrl = Objects.requireNonNull(url, "url");
            return this;
        }

        /** The server's name (recorder option {@code server}); default {@code "minestom"}. */
        public Builder serverName(String name) {
            this.serverName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Which instances to record; default every instance. */
        public Builder recordInstances(Predicate<Instance> which) {
            this.recordInstance = Objects.requireNonNull(which, "which");
            return this;
        }

        /** How much of each instance shadow play keeps in memory; default 5 minutes. */
        public Builder shadowWindow(Duration window) {
            this.shadowWindow = Objects.requireNonNull(window, "window");
            return this;
        }

        /** How far back a report reaches; default the shadow window. */
        public Builder reportBefore(Duration before) {
            this.reportBefore = Objects.requireNonNull(before, "before");
            return this;
        }

        /** How long a report keeps capturing after {@code /report}; default 30 s. */
        public Builder reportAfter(Duration after) {
            this.reportAfter = Objects.requireNonNull(after, "after");
            return this;
        }

        /** The radius around the reported player whose entities a report keeps; default 48 blocks. */
        public Builder reportRadius(double blocks) {
            this.reportRadius = blocks;
            return this;
        }

        /** Whether to register {@code /report <player> <reason>}; default true. */
        public Builder reportCommand(boolean on) {
            this.reportCommand = on;
            return this;
        }

        /** Whether to register {@code /race best|pb|rank N} (which run the player's ghost replays); default true. */
        public Builder raceCommand(boolean on) {
            this.raceCommand = on;
            return this;
        }

        /** Whether to register {@code /replay} (recordings played in game to the player who asks); default true. */
        public Builder replayCommand(boolean on) {
            this.replayCommand = on;
            return this;
        }

        /** How often recordings are made durable; default 5 s. */
        public Builder flushInterval(Duration interval) {
            this.flushInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** Memory for all instances' shadow play together; default 256 MiB. */
        public Builder shadowBudgetBytes(long bytes) {
            this.shadowBudgetBytes = bytes;
            return this;
        }

        /**
         * The terrain recorded around players: the chunks within {@code chunks} (in chunks, a
         * square) of each player's chunk, each offered once per recording when a player first
         * comes near it (at most two chunks per tick); default 2, -1 for none.
         */
        public Builder terrainRadius(int chunks) {
            if (chunks < -1 || chunks > 16) {
                throw new IllegalArgumentException("terrainRadius must be -1 to 16 (got " + chunks + ")");
            }
            this.terrainRadius = chunks;
            return this;
        }

        /**
         * Whether {@code install} finishes the live recordings a stopped or crashed server left in
         * {@code DATA/recordings} (each {@code *.reel.live}: recovered with every flushed tick, then
         * compacted into its {@code .reel}, in the background); default true.
         */
        public Builder recoverLeftovers(boolean on) {
            this.recoverLeftovers = on;
            return this;
        }

        /**
         * Whether to measure what the per-tick work allocates on the tick thread ({@link
         * TickreelMinestom#tickStats()}); default off.
         */
        public Builder measureAllocations(boolean on) {
            this.measureAllocations = on;
            return this;
        }

        /** The options. */
        public TickreelMinestomOptions build() {
            return new TickreelMinestomOptions(this);
        }
    }
}
