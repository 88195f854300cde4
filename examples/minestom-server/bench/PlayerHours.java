import io.tickreel.EntityInfo;
import io.tickreel.EntityState;
import io.tickreel.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Bytes per player-hour of finished recordings, for examples/minestom-server/bench.sh: each file's
 * size over the time its players were in it, counted by seeking to every second of the recording
 * and counting the live entities that are players (kind 0 with a UUID). Prints
 * {@code bytes=B player_seconds=S bytes_per_player_hour=H}.
 * Usage: java -cp tickreel.jar PlayerHours.java FILE.reel...
 */
public final class PlayerHours {
    public static void main(String[] args) throws Exception {
        long bytes = 0;
        double playerSeconds = 0;
        for (String arg : args) {
            Path file = Path.of(arg);
            bytes += Files.size(file);
            try (Reader r = Reader.open(file)) {
                Set<Integer> players = new HashSet<>();
                for (EntityInfo e : r.entities()) {
                    if (e.kind() == 0 && e.uuid() != null) {
                        players.add(e.id());
                    }
                }
                int first = r.header().firstTick().orElse(0);
                int last = r.header().lastTick().orElse(-1);
                int step = (int) Math.max(1, Math.round(r.header().ticksPerSecond()));
                for (int tick = first; tick <= last; tick += step) {
                    long alive = 0;
                    for (EntityState s : r.seek(tick).entities()) {
                        if (players.contains(s.id())) {
                            alive++;
                        }
                    }
                    playerSeconds += alive * (double) Math.min(step, last - tick + 1) / r.header().ticksPerSecond();
                }
            }
        }
        if (playerSeconds <= 0) {
            throw new IllegalStateException("no player in " + String.join(", ", args));
        }
        System.out.printf("bytes=%d player_seconds=%.1f bytes_per_player_hour=%.0f%n", bytes, playerSeconds,
                bytes / playerSeconds * 3600);
    }
}
