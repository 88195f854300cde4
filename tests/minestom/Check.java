import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tickreel.Catalog;
import io.tickreel.DecodedTick;
import io.tickreel.EntityFlags;
import io.tickreel.EntityInfo;
import io.tickreel.Event;
import io.tickreel.PaletteKind;
import io.tickreel.Pose;
import io.tickreel.Reader;
import io.tickreel.Report;
import io.tickreel.WorldState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Checks what tests/minestom/bots.js did against what examples/minestom-server recorded, with the
 * io.tickreel API only (Reader, WorldState, Catalog):
 *
 *   java -cp 'examples/minestom-server/target/lib/*' tests/minestom/Check.java DATA BOTS.jsonl
 *
 * Prints one line per check and exits 1 if any failed.
 */
public class Check {
    static final double POS_TOLERANCE = 0.01;      // blocks
    static final double ANGLE_TOLERANCE = 0.01;    // degrees
    /**
     * Share of a bot's sent positions that must appear in the recording: two packets in one server
     * tick keep the later, and on a loaded machine (the 2-core test machine with a build beside)
     * late ticks fold more of them (71 % seen once); every recorded pose is still checked to be a
     * sent one, in order.
     */
    static final double MIN_COVERAGE = 0.5;

    static int failures;
    static int checks;

    static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok   " : "FAIL ") + what);
    }

    record Move(double x, double y, double z, double yaw, double pitch, boolean onGround) {}

    record Recorded(int tick, Pose pose, int flags) {}

    static List<JsonObject> readLog(Path file) throws java.io.IOException {
        List<JsonObject> log = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                log.add(JsonParser.parseString(line).getAsJsonObject());
            }
        }
        return log;
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("--walkers")) {
            walkers(Path.of(args[1]), readLog(Path.of(args[2])), List.of(args).subList(3, args.length));
            finish();
        }
        Path data = Path.of(args[0]);
        List<JsonObject> log = readLog(Path.of(args[1]));
        Map<String, JsonObject> joined = new LinkedHashMap<>();
        for (JsonObject o : log) {
            if (o.get("type").getAsString().equals("joined")) {
                joined.put(o.get("bot").getAsString(), o);
            }
        }
        check(joined.size() == 5, "the bots' log has 5 joined bots (" + joined.keySet() + ")");

        List<Path> reels;
        try (Stream<Path> s = Files.list(data.resolve("recordings"))) {
            reels = s.filter(p -> p.getFileName().toString().endsWith(".reel")).sorted().toList();
        }
        try (Stream<Path> s = Files.list(data.resolve("recordings"))) {
            List<Path> live = s.filter(p -> p.getFileName().toString().endsWith(".live")).toList();
            check(live.isEmpty(), "no live recording left after SIGTERM " + live);
        }
        check(reels.size() == 1, "one finished recording in " + data.resolve("recordings") + " " + reels);
        if (reels.isEmpty()) {
            finish();
        }
        try (Reader reader = Reader.open(reels.get(0))) {
            System.out.println("recording " + reels.get(0) + ": " + reader.header().tickCount() + " ticks, "
                    + reader.header().events() + " events; verify: " + reader.verify());
            checkRecording(reader, log, joined);
        }
        checkReport(data, log, joined);
        checkTrials(data, log, joined);
        finish();
    }

    static void finish() {
        System.out.println(checks + " checks, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
    }

    static void checkRecording(Reader reader, List<JsonObject> log, Map<String, JsonObject> joined) {
        int last = reader.header().lastTick().orElseThrow();
        List<DecodedTick> ticks = reader.ticks(0, last);
        Map<Integer, String> nameOf = new HashMap<>();
        for (Map.Entry<String, JsonObject> e : joined.entrySet()) {
            String bot = e.getKey();
            int id = e.getValue().get("entityId").getAsInt();
            UUID uuid = UUID.fromString(e.getValue().get("uuid").getAsString());
            nameOf.put(id, bot);
            EntityInfo info = reader.entities().stream().filter(i -> i.id() == id).findFirst().orElse(null);
            check(info != null && bot.equals(info.name()) && uuid.equals(info.uuid()),
                    bot + " is registered as entity " + id + " with UUID " + uuid + " (" + info + ")");
        }

        // Poses and flags, per entity, at the ticks where the recording has them.
        Map<Integer, List<Recorded>> poses = new HashMap<>();
        Map<Integer, Pose> adds = new HashMap<>();
        Map<Integer, Integer> flags = new HashMap<>();
        Map<Integer, Integer> flagsSeen = new HashMap<>();
        Map<Integer, Integer> swings = new HashMap<>();
        Map<Integer, List<String>> chat = new HashMap<>();
        List<String> attacks = new ArrayList<>();
        Map<String, List<String>> blockChanges = new HashMap<>();   // "x,y,z" -> [state name by entity]
        Map<Integer, List<String>> mainHand = new HashMap<>();
        List<String> leaves = new ArrayList<>();
        Map<Integer, List<String>> uses = new HashMap<>();
        Map<Integer, List<Integer>> health = new HashMap<>();
        Map<Integer, List<String>> damage = new HashMap<>();
        for (DecodedTick t : ticks) {
            Map<Integer, Pose> moved = new HashMap<>();
            for (Event ev : t.events()) {
                switch (ev) {
                    case Event.EntityAdd a -> adds.put(a.entity(), a.pose());
                    case Event.Moved m -> moved.put(m.entity(), m.pose());
                    case Event.Teleport m -> moved.put(m.entity(), m.pose());
                    case Event.Flags f -> {
                        flags.put(f.entity(), f.flags());
                        flagsSeen.merge(f.entity(), f.flags(), (a, b) -> a | b);
                    }
                    case Event.Swing s -> swings.merge(s.entity(), 1, Integer::sum);
                    case Event.Attack a -> attacks.add(nameOf.get(a.attacker()) + "->" + nameOf.get(a.target()));
                    case Event.Chat c -> chat.computeIfAbsent(c.sender().orElse(-1), k -> new ArrayList<>()).add(c.text());
                    case Event.BlockChange b -> blockChanges.computeIfAbsent(b.x() + "," + b.y() + "," + b.z(),
                            k -> new ArrayList<>()).add(reader.paletteName(PaletteKind.BLOCK, b.state())
                            + " by " + (b.cause().isPresent() ? nameOf.get(b.cause().getAsInt()) : "nobody"));
                    case Event.Equipment q when q.slot() == 0 -> mainHand.computeIfAbsent(q.entity(), k -> new ArrayList<>())
                            .add((q.item() == 0 ? "nothing" : reader.paletteName(PaletteKind.ITEM, q.item())) + " x" + q.count());
                    case Event.PlayerLeave l -> leaves.add(nameOf.get(l.entity()));
                    case Event.Use u -> uses.computeIfAbsent(u.entity(), k -> new ArrayList<>()).add(
                            "hand " + u.hand() + " " + (u.item() == 0 ? "nothing" : reader.paletteName(PaletteKind.ITEM, u.item()))
                                    + (u.targetEntity().isPresent() ? " on entity" : u.targetBlock() != null ? " on a block" : ""));
                    case Event.Health h -> health.computeIfAbsent(h.entity(), k -> new ArrayList<>()).add(h.health());
                    case Event.Damage d -> damage.computeIfAbsent(d.entity(), k -> new ArrayList<>()).add(
                            reader.paletteName(PaletteKind.DAMAGE_CAUSE, d.cause()) + " " + d.amount() + " by "
                                    + (d.source().isPresent() ? nameOf.get(d.source().getAsInt()) : "nobody"));
                    default -> {}
                }
            }
            for (Map.Entry<Integer, Pose> m : moved.entrySet()) {
                poses.computeIfAbsent(m.getKey(), k -> new ArrayList<>())
                        .add(new Recorded(t.tick(), m.getValue(), flags.getOrDefault(m.getKey(), 0)));
            }
        }

        for (Map.Entry<String, JsonObject> e : joined.entrySet()) {
            String bot = e.getKey();
            int id = e.getValue().get("entityId").getAsInt();
            List<Move> sent = new ArrayList<>();
            int swingsSent = 0;
            List<String> chatSent = new ArrayList<>();
            boolean sprinted = false;
            boolean sneaked = false;
            for (JsonObject o : log) {
                if (!o.get("bot").getAsString().equals(bot)) {
                    continue;
                }
                switch (o.get("type").getAsString()) {
                    case "move" -> {
                        if (!Double.isNaN(num(o, "x")) && !Double.isNaN(num(o, "yaw"))) {
                            sent.add(new Move(num(o, "x"), num(o, "y"), num(o, "z"), num(o, "yaw"), num(o, "pitch"),
                                    o.get("onGround").getAsBoolean()));
                        }
                    }
                    case "swing" -> swingsSent++;
                    case "chat" -> chatSent.add(o.get("text").getAsString());
                    case "action" -> sprinted |= o.get("action").getAsString().equals("start_sprinting");
                    case "input" -> sneaked |= o.getAsJsonObject("inputs").has("shift")
                            && o.getAsJsonObject("inputs").get("shift").getAsBoolean();
                    default -> {}
                }
            }
            // Every recorded pose is a state the bot sent, in the order it sent them.
            List<Recorded> rec = poses.getOrDefault(id, List.of());
            int i = 0;
            int matched = 0;
            int groundMismatch = 0;
            String firstMiss = null;
            double worst = 0;
            for (Recorded r : rec) {
                int j = nextMatch(sent, i, r.pose());
                if (j == sent.size()) {
                    if (firstMiss == null) {
                        firstMiss = "tick " + r.tick() + " " + fmt(r.pose());
                    }
                    continue;
                }
                Move m = sent.get(j);
                worst = Math.max(worst, Math.max(Math.abs(m.x() - r.pose().x()),
                        Math.max(Math.abs(m.y() - r.pose().y()), Math.abs(m.z() - r.pose().z()))));
                if (m.onGround() != ((r.flags() & EntityFlags.ON_GROUND) != 0)) {
                    groundMismatch++;
                }
                matched++;
                i = j + 1;
            }
            Pose added = adds.get(id);
            long distinct = distinctStates(sent, added);
            check(!rec.isEmpty() && firstMiss == null,
                    bot + ": each of the " + rec.size() + " recorded poses is a position+rotation the bot sent, in order, within "
                            + POS_TOLERANCE + " block and " + ANGLE_TOLERANCE + " deg (largest position difference "
                            + String.format("%.6f", worst) + (firstMiss == null ? "" : "; not sent: " + firstMiss) + ")");
            check(firstMiss == null && worst <= 0.5 / Pose.POSITION_SCALE + 1e-9,
                    bot + ": the matched poses are the sent positions to the recording's precision (1/4096 block): "
                            + String.format("%.6f", worst) + " <= " + String.format("%.6f", 0.5 / Pose.POSITION_SCALE));
            check(distinct > 0 && matched >= MIN_COVERAGE * distinct,
                    bot + ": " + matched + " of the " + distinct + " distinct states it sent are in the recording (at least "
                            + (int) (MIN_COVERAGE * 100) + "%)");
            check(groundMismatch == 0, bot + ": on-ground flag as the bot sent it at every recorded pose ("
                    + groundMismatch + " differ)");
            if (sprinted) {
                check((flagsSeen.getOrDefault(id, 0) & EntityFlags.SPRINTING) != 0, bot + " sprinted: SPRINTING recorded");
            }
            if (sneaked) {
                check((flagsSeen.getOrDefault(id, 0) & EntityFlags.SNEAKING) != 0, bot + " sneaked: SNEAKING recorded");
            }
            check(swings.getOrDefault(id, 0) == swingsSent,
                    bot + ": swings recorded " + swings.getOrDefault(id, 0) + " = sent " + swingsSent);
            check(chat.getOrDefault(id, List.of()).equals(chatSent),
                    bot + ": chat recorded " + chat.getOrDefault(id, List.of()) + " = sent " + chatSent);
            check(leaves.contains(bot), bot + ": its leave is recorded");
            List<String> used = new ArrayList<>();
            for (JsonObject o : log) {
                if (o.get("bot").getAsString().equals(bot) && o.get("type").getAsString().equals("use")) {
                    used.add("hand " + o.get("hand").getAsInt() + " " + o.get("item").getAsString());
                }
            }
            List<String> usedInAir = uses.getOrDefault(id, List.of()).stream().filter(u -> !u.endsWith(" on a block")).toList();
            check(usedInAir.equals(used), bot + ": item uses recorded " + usedInAir + " = sent " + used);
            List<Integer> seen = new ArrayList<>();
            for (JsonObject o : log) {
                if (o.get("bot").getAsString().equals(bot) && o.get("type").getAsString().equals("health")) {
                    int h = (int) Math.round(o.get("health").getAsDouble() * 100);
                    if (seen.isEmpty() || seen.get(seen.size() - 1) != h) {
                        seen.add(h);
                    }
                }
            }
            check(!seen.isEmpty() && health.getOrDefault(id, List.of()).equals(seen),
                    bot + ": health recorded " + health.getOrDefault(id, List.of()) + " = what its client was told " + seen);
        }
        check(chat.keySet().stream().allMatch(nameOf::containsKey), "every chat line has a bot as its sender " + chat.keySet());
        int daveId = joined.get("Dave").get("entityId").getAsInt();
        int bobId = joined.get("Bob").get("entityId").getAsInt();
        for (DecodedTick t : ticks) {
            for (Event ev : t.events()) {
                if (ev instanceof Event.Chat c && c.sender().orElse(-1) == daveId) {
                    var at = reader.seek(t.tick());
                    Pose d = at.entity(daveId).orElseThrow().pose();
                    Pose b = at.entity(bobId).orElseThrow().pose();
                    double dist = Math.hypot(Math.hypot(d.x() - b.x(), d.y() - b.y()), d.z() - b.z());
                    check(dist > 48, String.format("Dave chatted at tick %d %.1f blocks from Bob (over the report's 48)", t.tick(), dist));
                }
            }
        }

        List<String> attacksSent = new ArrayList<>();
        for (JsonObject o : log) {
            if (o.get("type").getAsString().equals("attack")) {
                attacksSent.add(o.get("bot").getAsString() + "->" + nameOf.get(o.get("target").getAsInt()));
            }
        }
        check(!attacksSent.isEmpty() && attacks.equals(attacksSent),
                "attacks recorded " + attacks + " = sent " + attacksSent);
        int bobEntity = joined.get("Bob").get("entityId").getAsInt();
        List<String> bobDamage = damage.getOrDefault(bobEntity, List.of());
        check(bobDamage.size() == attacksSent.size()
                        && bobDamage.stream().allMatch(d -> d.equals("minecraft:player_attack 100 by Carol")),
                "Bob's damage recorded " + bobDamage + ": one 'minecraft:player_attack 100 by Carol' per hit");
        java.util.Set<Integer> playersDamaged = new java.util.HashSet<>(damage.keySet());
        playersDamaged.retainAll(nameOf.keySet());   // the pig's damage is checked with the pig
        check(playersDamaged.equals(java.util.Set.of(bobEntity)), "only Bob of the players took damage " + damage.keySet());

        // Blocks: each edit the bots saw is recorded at its position with the state's registry name.
        Map<String, String> finalState = new LinkedHashMap<>();
        Map<String, List<String>> edits = new LinkedHashMap<>();
        List<String> held = new ArrayList<>();
        for (JsonObject o : log) {
            String type = o.get("type").getAsString();
            if (type.equals("dig") || type.equals("place")) {
                String key = o.get("x").getAsInt() + "," + o.get("y").getAsInt() + "," + o.get("z").getAsInt();
                String expected = o.get("state").getAsString() + " by " + o.get("bot").getAsString();
                edits.computeIfAbsent(key, k -> new ArrayList<>()).add(expected);
                finalState.put(key, o.get("state").getAsString());
            } else if (type.equals("held")) {
                held.add(o.get("item").getAsString() + " x" + o.get("count").getAsInt());
            }
        }
        check(edits.size() >= 4, "the bots edited " + edits.size() + " positions");
        for (Map.Entry<String, List<String>> e : edits.entrySet()) {
            List<String> got = blockChanges.getOrDefault(e.getKey(), List.of());
            check(got.equals(e.getValue()), "block " + e.getKey() + ": recorded " + got + " = done " + e.getValue());
        }
        java.util.Set<String> editedKeys = new java.util.HashSet<>(blockChanges.keySet());
        editedKeys.remove("4,45,-4");   // the lamp the server switches (checked below)
        check(editedKeys.equals(edits.keySet()),
                "no block change recorded where no bot edited, but the server's lamp " + blockChanges.keySet());
        try (WorldState world = reader.worldAt(last)) {
            for (Map.Entry<String, String> e : finalState.entrySet()) {
                String[] xyz = e.getKey().split(",");
                long state = world.block(Integer.parseInt(xyz[0]), Integer.parseInt(xyz[1]), Integer.parseInt(xyz[2]));
                String name = state < 0 ? "(none)" : reader.paletteName(PaletteKind.BLOCK, (int) state);
                check(e.getValue().equals(name), "world at the last tick " + last + ": " + e.getKey() + " is " + name
                        + " = the bot's " + e.getValue());
            }
        }
        // Terrain and edits together: the world at the last tick equals what Bob's client held
        // around the edits at the end.
        JsonObject area = log.stream().filter(o -> o.get("type").getAsString().equals("area")).findFirst().orElse(null);
        check(area != null, "Bob logged the blocks around the edits");
        if (area != null) {
            try (WorldState world = reader.worldAt(last)) {
                check(world.terrainSectionCount() > 0, "the recording has terrain (" + world.terrainSectionCount() + " sections)");
                int same = 0;
                List<String> differ = new ArrayList<>();
                for (var el : area.getAsJsonArray("blocks")) {
                    var b = el.getAsJsonArray();
                    int x = b.get(0).getAsInt(), y = b.get(1).getAsInt(), z = b.get(2).getAsInt();
                    long state = world.block(x, y, z);
                    String name = state < 0 ? "(none)" : reader.paletteName(PaletteKind.BLOCK, (int) state);
                    if (b.get(3).getAsString().equals(name)) {
                        same++;
                    } else if (differ.size() < 5) {
                        differ.add(x + "," + y + "," + z + ": recorded " + name + ", client " + b.get(3).getAsString());
                    }
                }
                int total = area.getAsJsonArray("blocks").size();
                check(same == total, "world at the last tick: " + same + " of the " + total
                        + " blocks around the edits (x 0..6, y 37..42, z 1..5) are what Bob's client held " + differ);
            }
        }
        // The pig the server walks in a circle: recorded with its kind's name, every position Carol's
        // client saw on its recorded path, removed when the recording ends.
        EntityInfo pig = reader.entities().stream().filter(i -> "minecraft:pig".equals(i.name())).findFirst().orElse(null);
        check(pig != null, "the pig is registered with its kind's name " + pig);
        if (pig != null) {
            List<Pose> pigPath = new ArrayList<>();
            int[] pigKind = {-1};
            boolean[] removed = {false};
            for (DecodedTick t : ticks) {
                for (Event ev : t.events()) {
                    switch (ev) {
                        case Event.EntityAdd a when a.entity() == pig.id() -> {
                            pigKind[0] = a.kind();
                            pigPath.add(a.pose());
                        }
                        case Event.Moved m when m.entity() == pig.id() -> pigPath.add(m.pose());
                        case Event.EntityRemove r when r.entity() == pig.id() -> removed[0] = true;
                        default -> {}
                    }
                }
            }
            List<double[]> seen = new ArrayList<>();
            for (JsonObject o : log) {
                if (o.get("type").getAsString().equals("pig")) {
                    seen.add(new double[] {num(o, "x"), num(o, "y"), num(o, "z")});
                }
            }
            check(pigKind[0] == pig.kind() && pigPath.size() > 100 && removed[0],
                    "the pig (kind " + pigKind[0] + ") has " + pigPath.size() + " poses and its removal at the end");
            check(seen.size() >= 100 && followsPath(seen, pigPath),
                    "every one of the " + seen.size() + " pig positions Carol's client saw is on its recorded path, in order");
            // Its state, which the server changes every 2 s: what Carol's client was told (sneaking
            // flag, health, equipment) is, in order, what the recording holds; its damage recorded.
            List<Boolean> recSneak = new ArrayList<>();
            List<Integer> recHealth = new ArrayList<>();
            Map<Integer, List<String>> recSlots = new HashMap<>();
            List<String> recDamage = new ArrayList<>();
            for (DecodedTick t : ticks) {
                for (Event ev : t.events()) {
                    switch (ev) {
                        case Event.Flags f when f.entity() == pig.id() -> recSneak.add((f.flags() & EntityFlags.SNEAKING) != 0);
                        case Event.Health h when h.entity() == pig.id() -> recHealth.add(h.health());
                        case Event.Equipment q when q.entity() == pig.id() -> recSlots.computeIfAbsent(q.slot(), x -> new ArrayList<>())
                                .add(q.item() == 0 ? "minecraft:air" : reader.paletteName(PaletteKind.ITEM, q.item()));
                        case Event.Damage d when d.entity() == pig.id() -> recDamage.add(reader.paletteName(PaletteKind.DAMAGE_CAUSE,
                                d.cause()) + " " + d.amount() + (d.source().isPresent() ? " by " + d.source().getAsInt() : ""));
                        default -> {}
                    }
                }
            }
            List<Boolean> seenSneak = new ArrayList<>();
            List<Integer> seenHealth = new ArrayList<>();
            Map<Integer, List<String>> seenSlots = new HashMap<>();
            int hurts = 0;
            for (JsonObject o : log) {
                switch (o.get("type").getAsString()) {
                    case "pig-flags" -> addChanged(seenSneak, (o.get("value").getAsInt() & 0x02) != 0);
                    case "pig-health" -> addChanged(seenHealth, Math.round(o.get("value").getAsFloat() * 100));
                    case "pig-equipment" -> addChanged(seenSlots.computeIfAbsent(o.get("slot").getAsInt(), x -> new ArrayList<>()),
                            o.get("item").getAsString());
                    case "pig-hurt" -> hurts++;
                    default -> {}
                }
            }
            check(seenSneak.size() >= 3 && inOrder(seenSneak, recSneak), "the pig's sneaking as Carol's client was told "
                    + seenSneak + " is in order in its recorded flags " + recSneak);
            check(seenHealth.size() >= 3 && inOrder(seenHealth, recHealth), "the pig's health as Carol's client was told "
                    + seenHealth + " is in order in its recorded health " + recHealth);
            List<String> seenHand = seenSlots.getOrDefault(0, List.of());
            check(seenHand.size() >= 3 && seenHand.contains("minecraft:carrot") && inOrder(seenHand, recSlots.getOrDefault(0, List.of())),
                    "the pig's main hand as Carol's client saw it " + seenHand + " is in order in its recorded equipment "
                            + recSlots.get(0));
            check(hurts >= 2 && recDamage.size() >= hurts && recDamage.stream().allMatch("minecraft:magic 100"::equals),
                    "the pig's damage: " + hurts + " hurts Carol's client saw, " + recDamage.size()
                            + " recorded, each 'minecraft:magic 100' " + (recDamage.size() > 5 ? recDamage.subList(0, 5) : recDamage));
        }
        // The lamp the server switches by itself: every state Carol's client was told, in order,
        // among its recorded block changes (caused by nobody, named with their lit property).
        List<String> recLamp = blockChanges.getOrDefault("4,45,-4", List.of());
        List<String> seenLamp = new ArrayList<>();
        for (JsonObject o : log) {
            if (o.get("type").getAsString().equals("replay-before")) {
                break;   // from here on Carol watches a replay, which shows her the report's lamp
            }
            if (o.get("type").getAsString().equals("lamp")) {
                addChanged(seenLamp, o.get("block").getAsString() + " by nobody");
            }
        }
        check(seenLamp.size() >= 3 && seenLamp.stream().anyMatch(x -> x.startsWith("minecraft:redstone_lamp[lit=true]"))
                        && inOrder(seenLamp, recLamp),
                "the lamp the server switches: the " + seenLamp.size() + " states Carol's client was told are in order in its "
                        + recLamp.size() + " recorded changes " + (recLamp.size() > 4 ? recLamp.subList(0, 4) : recLamp));
        int bob = joined.get("Bob").get("entityId").getAsInt();
        List<String> hand = mainHand.getOrDefault(bob, List.of());
        int k = 0;
        for (String h : hand) {
            if (k < held.size() && h.equals(held.get(k))) {
                k++;
            }
        }
        check(held.size() >= 4 && k == held.size(), "Bob's main hand recorded " + hand + " holds, in order, what he held " + held);
    }

    static void checkReport(Path data, List<JsonObject> log, Map<String, JsonObject> joined) {
        JsonObject told = log.stream().filter(o -> o.get("type").getAsString().equals("report")).findFirst().orElse(null);
        check(told != null, "the reporter was told a report id");
        if (told == null) {
            return;
        }
        long id = told.get("id").getAsLong();
        UUID bob = UUID.fromString(joined.get("Bob").get("uuid").getAsString());
        UUID alice = UUID.fromString(joined.get("Alice").get("uuid").getAsString());
        try (Catalog catalog = Catalog.open("sqlite:" + data.resolve("catalog.sqlite"))) {
            List<Report> reports = catalog.reports().await();
            Report r = reports.stream().filter(x -> x.id() == id).findFirst().orElse(null);
            check(r != null, "report #" + id + " is in the catalog (" + reports.size() + " report(s))");
            if (r == null) {
                return;
            }
            check(bob.equals(r.reported()) && "Bob".equals(r.reportedName()) && alice.equals(r.reporter())
                            && told.get("reason").getAsString().equals(r.reason()) && r.open(),
                    "report #" + id + ": Bob reported by Alice for '" + r.reason() + "', open");
            // The adapter names its server in the recorder options; the library carries it into
            // the report and its catalog row (ShadowBuffer.start passes RecorderOptions.server).
            check(r.server().isPresent() && r.server().get().equals("example"),
                    "report #" + id + " names the server: " + r.server());
            check(r.location().isPresent() && r.recordingId().isPresent(), "report #" + id + " has its recording " + r.location());
            if (r.location().isEmpty()) {
                return;
            }
            try (Reader rep = Reader.open(Path.of(r.location().get()))) {
                EntityInfo bobInfo = rep.entities().stream().filter(i -> bob.equals(i.uuid())).findFirst().orElse(null);
                check(bobInfo != null && "Bob".equals(bobInfo.name()), "the report's recording holds Bob " + bobInfo);
                if (bobInfo != null) {
                    int last = rep.header().lastTick().orElseThrow();
                    int[] poses = {0};
                    rep.forEachTick(rep.header().firstTick().orElseThrow(), last, t -> {
                        for (Event ev : t.events()) {
                            if ((ev instanceof Event.Moved m && m.entity() == bobInfo.id())
                                    || (ev instanceof Event.EntityAdd a && a.entity() == bobInfo.id())) {
                                poses[0]++;
                            }
                        }
                    });
                    check(poses[0] > 0, "the report's recording has Bob's poses (" + poses[0] + ")");
                    try (WorldState w = rep.worldAt(last)) {
                        long state = w.block(2, 38, 3);   // under the block Bob dug: terrain only
                        check(w.terrainSectionCount() > 0 && state >= 0
                                        && "minecraft:dirt".equals(rep.paletteName(PaletteKind.BLOCK, (int) state)),
                                "the report carries the terrain around Bob (" + w.terrainSectionCount()
                                        + " sections; 2,38,3 is " + (state < 0 ? "unknown" : rep.paletteName(PaletteKind.BLOCK, (int) state)) + ")");
                    }
                }
                check(rep.entities().stream().anyMatch(i -> "Carol".equals(i.name())),
                        "the report keeps Carol, who hit Bob within the radius");
                List<String> lines = new ArrayList<>();
                int attacksKept = 0;
                for (DecodedTick t : rep.ticks(rep.header().firstTick().orElseThrow(), rep.header().lastTick().orElseThrow())) {
                    for (Event ev : t.events()) {
                        if (ev instanceof Event.Chat c) {
                            lines.add(c.text());
                        } else if (ev instanceof Event.Attack) {
                            attacksKept++;
                        }
                    }
                }
                String bobLine = lastChat(log, "Bob");
                String daveLine = lastChat(log, "Dave");
                check(bobLine != null && lines.contains(bobLine), "the report keeps Bob's chat line '" + bobLine + "' " + lines);
                check(daveLine != null && !lines.contains(daveLine),
                        "the report leaves out Dave's line '" + daveLine + "', said more than 48 blocks away " + lines);
                check(attacksKept == 3, "the report keeps Carol's 3 hits on Bob (" + attacksKept + ")");
                checkReplay(rep, log);
                Map<String, Object> meta = rep.metadata();
                check("example".equals(meta.get("server")), "the report's metadata names the server: " + meta.get("server"));
            }
        }
    }

    /**
     * The crash and unwritable-folder phases: no live recording is left; for each bot of
     * {@code whole} (Eve: her walk and leave flushed by the leave before the kill; Gus: recorded
     * through 10 s of failed writes) one finished recording holds its whole walk and its leave;
     * Fay's poses (flushed or not before the kill) are states she sent.
     */
    static void walkers(Path data, List<JsonObject> log, List<String> whole) throws Exception {
        Map<String, JsonObject> joined = new LinkedHashMap<>();
        for (JsonObject o : log) {
            if (o.get("type").getAsString().equals("joined")) {
                joined.put(o.get("bot").getAsString(), o);
            }
        }
        check(joined.keySet().containsAll(whole) && joined.containsKey("Fay"), "the crash log has " + whole + " and Fay " + joined.keySet());
        List<Path> reels;
        try (Stream<Path> s = Files.list(data.resolve("recordings"))) {
            List<Path> all = s.toList();
            check(all.stream().noneMatch(p -> p.getFileName().toString().endsWith(".live")),
                    "no live recording left after the last stop " + all);
            reels = all.stream().filter(p -> p.getFileName().toString().endsWith(".reel")).sorted().toList();
        }
        List<String> bots = new ArrayList<>(whole);
        bots.add("Fay");
        for (String bot : bots) {
            JsonObject j = joined.get(bot);
            if (j == null) {
                continue;
            }
            UUID uuid = UUID.fromString(j.get("uuid").getAsString());
            Path found = null;
            for (Path r : reels) {
                try (Reader reader = Reader.open(r)) {
                    if (reader.entities().stream().anyMatch(i -> uuid.equals(i.uuid()))) {
                        check(found == null, "only one recording holds " + bot + " (" + r + ")");
                        found = r;
                    }
                }
            }
            if (found == null) {
                if (whole.contains(bot)) {
                    check(false, bot + ": a finished recording holds them (none of " + reels.size() + " does)");
                } else {
                    System.out.println(bot + ": in no recording (nothing of theirs was flushed before the kill)");
                }
                continue;
            }
            try (Reader reader = Reader.open(found)) {
                System.out.println(bot + " in " + found.getFileName() + ": " + reader.header().tickCount()
                        + " ticks; verify: " + reader.verify());
                int last = reader.header().lastTick().orElseThrow();
                int id = j.get("entityId").getAsInt();
                List<Recorded> rec = new ArrayList<>();
                Pose added = null;
                boolean left = false;
                for (DecodedTick t : reader.ticks(0, last)) {
                    for (Event ev : t.events()) {
                        switch (ev) {
                            case Event.EntityAdd a when a.entity() == id -> added = a.pose();
                            case Event.Moved m when m.entity() == id -> rec.add(new Recorded(t.tick(), m.pose(), 0));
                            case Event.Teleport m when m.entity() == id -> rec.add(new Recorded(t.tick(), m.pose(), 0));
                            case Event.PlayerLeave l when l.entity() == id -> left = true;
                            default -> {}
                        }
                    }
                }
                List<Move> sent = new ArrayList<>();
                for (JsonObject o : log) {
                    if (o.get("bot").getAsString().equals(bot) && o.get("type").getAsString().equals("move")
                            && !Double.isNaN(num(o, "x")) && !Double.isNaN(num(o, "yaw"))) {
                        sent.add(new Move(num(o, "x"), num(o, "y"), num(o, "z"), num(o, "yaw"), num(o, "pitch"),
                                o.get("onGround").getAsBoolean()));
                    }
                }
                int i = 0;
                int matched = 0;
                String miss = null;
                for (Recorded r : rec) {
                    int k = i;
                    while (k < sent.size() && !same(sent.get(k), r.pose())) {
                        k++;
                    }
                    if (k == sent.size()) {
                        miss = miss == null ? "tick " + r.tick() + " " + fmt(r.pose()) : miss;
                        continue;
                    }
                    matched++;
                    i = k + 1;
                }
                check(miss == null, bot + ": each of the " + rec.size() + " recorded poses is a state the bot sent, in order"
                        + (miss == null ? "" : "; not sent: " + miss));
                if (whole.contains(bot)) {
                    long distinct = distinctStates(sent, added);
                    check(distinct > 20 && matched >= MIN_COVERAGE * distinct, bot + ": " + matched + " of the " + distinct
                            + " distinct states it sent are in the recording");
                    check(left, bot + ": its leave is in the recording");
                } else {
                    System.out.println(bot + ": " + rec.size() + " poses recovered of " + sent.size()
                            + " movement packets sent before the kill (what was flushed)");
                }
            }
        }
    }

    /** Adds {@code v} unless it equals the last element. */
    static <T> void addChanged(List<T> list, T v) {
        if (list.isEmpty() || !list.get(list.size() - 1).equals(v)) {
            list.add(v);
        }
    }

    /** Whether {@code seen} is a subsequence of {@code recorded}. */
    static <T> boolean inOrder(List<T> seen, List<T> recorded) {
        int k = 0;
        for (T v : seen) {
            while (k < recorded.size() && !recorded.get(k).equals(v)) {
                k++;
            }
            if (k == recorded.size()) {
                return false;
            }
            k++;
        }
        return true;
    }

    /** The poses of {@code id} in a run's recording (its EntityAdd first), its checkpoints into {@code checkpoints}. */
    static List<Pose> runPath(String location, int id, List<Integer> checkpoints) throws Exception {
        List<Pose> path = new ArrayList<>();
        try (Reader r = Reader.open(Path.of(location))) {
            for (DecodedTick t : r.ticks(0, r.header().lastTick().orElseThrow())) {
                for (Event ev : t.events()) {
                    switch (ev) {
                        case Event.EntityAdd a when a.entity() == id -> path.add(a.pose());
                        case Event.Moved m when m.entity() == id -> path.add(m.pose());
                        case Event.Checkpoint c when c.entity() == id -> checkpoints.add(c.index());
                        default -> {}
                    }
                }
            }
        }
        return path;
    }

    /**
     * Whether the ghost positions {@code seen} lie on {@code path} (within 0.05 block of its
     * segments), in order (one check).
     */
    static void onPath(List<double[]> seen, List<Pose> path, String what) {
        int seg = 0;
        double worst = 0;
        int off = 0;
        for (double[] g : seen) {
            int best1 = -1;
            double bestD = Double.MAX_VALUE;
            for (int k = seg; k < path.size() - 1; k++) {
                double d = segmentDistance(g, path.get(k), path.get(k + 1));
                if (d < bestD) {
                    bestD = d;
                    best1 = k;
                }
                if (d < 1e-6) {
                    break;
                }
            }
            if (path.size() == 1) {
                bestD = Math.hypot(Math.hypot(g[0] - path.get(0).x(), g[1] - path.get(0).y()), g[2] - path.get(0).z());
                best1 = 0;
            }
            if (bestD > 0.05) {
                off++;
            } else {
                seg = best1;
            }
            worst = Math.max(worst, bestD);
        }
        check(off == 0, String.format("every ghost position seen %s (%d of %d off; largest distance %.4f block, at most 0.05)",
                what, off, seen.size(), worst));
    }

    /**
     * Hal's three runs of the time trial and Carol's one: registered in the catalog with the times
     * the server told them, the board's best Hal's fastest run and rank 2 Carol's, run 1's
     * recording Hal's checkpoints 0..3 and poses he sent; in run 2 the ghost he saw (the board's
     * best) moved along run 1's recorded path, in order; in run 3, after {@code /race rank 2},
     * along Carol's recorded path (a lane 1 block from Hal's), told as rank 2 with Carol's time; the
     * splits and the action bar compared him with it.
     */
    static void checkTrials(Path data, List<JsonObject> log, Map<String, JsonObject> joined) throws Exception {
        JsonObject hal = joined.get("Hal");
        UUID uuid = UUID.fromString(hal.get("uuid").getAsString());
        int id = hal.get("entityId").getAsInt();
        JsonObject carol = joined.get("Carol");
        UUID carolUuid = UUID.fromString(carol.get("uuid").getAsString());
        int carolId = carol.get("entityId").getAsInt();
        List<JsonObject> told = log.stream().filter(o -> o.get("type").getAsString().equals("run")
                && o.get("bot").getAsString().equals("Hal")).toList();
        List<JsonObject> carolTold = log.stream().filter(o -> o.get("type").getAsString().equals("run")
                && o.get("bot").getAsString().equals("Carol")).toList();
        check(told.size() == 3 && carolTold.size() == 2, "Hal was told 3 finished runs " + told + ", Carol 2 " + carolTold);
        if (told.size() != 3 || carolTold.size() != 2) {
            return;
        }
        // What Hal logged, by run: ghost positions seen and the server's trial messages.
        Map<Integer, List<double[]>> seenIn = new HashMap<>();
        Map<Integer, List<String>> messagesIn = new HashMap<>();
        int current = 0;
        for (JsonObject o : log) {
            if (!o.get("bot").getAsString().equals("Hal")) {
                continue;
            }
            String type = o.get("type").getAsString();
            if (type.equals("run-start")) {
                current = o.get("n").getAsInt();
            } else if (type.equals("ghost") || type.equals("ghost-spawn")) {
                seenIn.computeIfAbsent(current, k -> new ArrayList<>()).add(new double[] {num(o, "x"), num(o, "y"), num(o, "z")});
            } else if (type.equals("trial-message")) {
                messagesIn.computeIfAbsent(current, k -> new ArrayList<>()).add(o.get("text").getAsString());
            }
        }
        // What Carol logged during her second run (/race pb): ghost positions and trial messages.
        List<double[]> carolSeen2 = new ArrayList<>();
        List<String> carolMessages2 = new ArrayList<>();
        boolean inCarol2 = false;
        for (JsonObject o : log) {
            if (!o.get("bot").getAsString().equals("Carol")) {
                continue;
            }
            String type = o.get("type").getAsString();
            if (type.equals("run-start") || type.equals("run")) {
                inCarol2 = type.equals("run-start") && o.get("n").getAsInt() == 2;
            } else if (inCarol2 && (type.equals("ghost") || type.equals("ghost-spawn"))) {
                carolSeen2.add(new double[] {num(o, "x"), num(o, "y"), num(o, "z")});
            } else if (inCarol2 && type.equals("trial-message")) {
                carolMessages2.add(o.get("text").getAsString());
            }
        }
        try (Catalog catalog = Catalog.open("sqlite:" + data.resolve("catalog.sqlite"))) {
            List<io.tickreel.Run> runs = catalog.recent(uuid, "sprint", 10).await();
            check(runs.size() == 3, "the catalog has Hal's 3 runs of 'sprint' (" + runs.size() + ")");
            io.tickreel.Run first = null;
            for (JsonObject t : told) {
                long runId = t.get("id").getAsLong();
                io.tickreel.Run r = runs.stream().filter(x -> x.id() == runId).findFirst().orElse(null);
                check(r != null && r.ticks() == t.get("ticks").getAsInt()
                                && Math.abs(r.seconds() - t.get("seconds").getAsDouble()) < 0.006
                                && "Hal".equals(r.playerName()) && r.entity() == id && r.valid(),
                        "run #" + runId + " in the catalog: " + (r == null ? "missing" : r.ticks() + " ticks, "
                                + r.seconds() + " s") + " = told " + t.get("ticks") + " ticks, " + t.get("seconds") + " s");
                if (t.get("n").getAsInt() == 1) {
                    first = r;
                }
            }
            List<io.tickreel.Run> carolRuns = catalog.recent(carolUuid, "sprint", 10).await();
            double carolSeconds = carolTold.get(0).get("seconds").getAsDouble();
            long carolFirstId = carolTold.get(0).get("id").getAsLong();
            io.tickreel.Run carolRun = carolRuns.size() == 2
                    ? carolRuns.stream().filter(x -> x.id() == carolFirstId).findFirst().orElse(null) : null;
            check(carolRun != null && Math.abs(carolRun.seconds() - carolSeconds) < 0.006 && carolRun.entity() == carolId,
                    "the catalog has Carol's 2 runs, her first as she was told " + carolTold.get(0) + ": " + carolRuns);
            double carolBest = carolTold.stream().mapToDouble(t -> t.get("seconds").getAsDouble()).min().orElseThrow();
            var top = catalog.top("sprint", 10).await();
            double best = told.stream().mapToDouble(t -> t.get("seconds").getAsDouble()).min().orElseThrow();
            check(top.size() == 2 && top.get(0).rank() == 1 && Math.abs(top.get(0).run().seconds() - best) < 0.006
                            && top.get(1).rank() == 2 && "Carol".equals(top.get(1).run().playerName())
                            && Math.abs(top.get(1).run().seconds() - carolBest) < 0.006,
                    "the board: Hal's fastest run (" + best + " s) first, Carol's fastest (" + carolBest + " s) second: " + top);
            if (first == null) {
                return;
            }
            List<Integer> checkpoints = new ArrayList<>();
            List<Pose> path = runPath(first.location(), id, checkpoints);
            check(checkpoints.equals(List.of(0, 1, 2, 3)), "run 1's recording has Hal's checkpoints 0..3 " + checkpoints);
            List<Move> sent = new ArrayList<>();
            for (JsonObject o : log) {
                if (o.get("bot").getAsString().equals("Hal") && o.get("type").getAsString().equals("move")
                        && !Double.isNaN(num(o, "x")) && !Double.isNaN(num(o, "yaw"))) {
                    sent.add(new Move(num(o, "x"), num(o, "y"), num(o, "z"), num(o, "yaw"), num(o, "pitch"), false));
                }
            }
            int i = 0;
            String miss = null;
            for (Pose p : path.subList(1, path.size())) {
                int k = i;
                while (k < sent.size() && !same(sent.get(k), p)) {
                    k++;
                }
                if (k == sent.size()) {
                    miss = miss == null ? fmt(p) : miss;
                    continue;
                }
                i = k + 1;
            }
            check(path.size() > 20 && miss == null, "run 1's " + (path.size() - 1) + " poses are states Hal sent, in order"
                    + (miss == null ? "" : "; not sent: " + miss));
            int early = seenIn.getOrDefault(1, List.of()).size();
            check(early == 0, "no ghost while no run was on the board (" + early + " seen in run 1)");
            // Run 2: the board's best (run 1) as the ghost.
            List<double[]> seen2 = seenIn.getOrDefault(2, List.of());
            int run2Ticks = told.get(1).get("ticks").getAsInt();
            check(seen2.size() >= run2Ticks / 2, "Hal saw the ghost spawn and move " + seen2.size() + " times during run 2 ("
                    + run2Ticks + " ticks)");
            onPath(seen2, path, "by Hal in run 2 is on run 1's recorded path, in order");
            check(messagesIn.getOrDefault(2, List.of()).stream().anyMatch(m -> m.equals(String.format("Racing the best run: %.2f s.",
                            told.get(0).get("seconds").getAsDouble()))),
                    "in run 2 Hal was told he races the best run, run 1 " + messagesIn.get(2));
            // Run 3: /race rank 2, Carol's run as the ghost (its lane is 1 block from Hal's runs).
            if (carolRun != null) {
                List<Pose> carolPath = runPath(carolRun.location(), carolId, new ArrayList<>());
                List<double[]> seen3 = seenIn.getOrDefault(3, List.of());
                int run3Ticks = told.get(2).get("ticks").getAsInt();
                check(seen3.size() >= run3Ticks / 2, "Hal saw the rank-2 ghost spawn and move " + seen3.size()
                        + " times during run 3 (" + run3Ticks + " ticks)");
                check(carolPath.size() > 20, "Carol's run has " + carolPath.size() + " poses");
                onPath(seen3, carolPath, "by Hal in run 3 (/race rank 2) is on Carol's recorded path, in order");
                List<String> m3 = messagesIn.getOrDefault(3, List.of());
                check(m3.contains(String.format("Racing rank 2: %.2f s.", carolSeconds)),
                        "in run 3 Hal was told he races rank 2 with Carol's time " + carolSeconds + " s: " + m3);
                // Carol's second run, after /race pb: her own first run as the ghost (the board's
                // best being Hal's, in the other lane).
                int carol2Ticks = carolTold.get(1).get("ticks").getAsInt();
                check(carolSeen2.size() >= carol2Ticks / 2, "Carol saw her personal-best ghost spawn and move "
                        + carolSeen2.size() + " times during her second run (" + carol2Ticks + " ticks)");
                onPath(carolSeen2, carolPath, "(Carol's second run, /race pb) is on Carol's first recorded run, in order");
                check(carolMessages2.contains(String.format("Racing your best run: %.2f s.", carolSeconds)),
                        "in her second run Carol was told she races her best run, " + carolSeconds + " s: " + carolMessages2);
            }
        }
        List<String> bars = log.stream().filter(o -> o.get("bot").getAsString().equals("Hal")
                && o.get("type").getAsString().equals("action-bar")).map(o -> o.get("text").getAsString()).toList();
        check(!bars.isEmpty() && bars.stream().allMatch(b -> b.matches("Ghost [+-]\\d+\\.\\d\\d s")),
                "Hal's action bar showed the live difference to the ghost (" + bars.size() + " updates, last "
                        + (bars.isEmpty() ? "none" : bars.get(bars.size() - 1)) + ")");
        // Splits: run 2's "Checkpoint k: T s (D s)" with D = T minus run 1's T at k.
        Map<Integer, Double> run1 = new HashMap<>();
        int checked = 0;
        boolean ok = true;
        java.util.regex.Pattern split = java.util.regex.Pattern.compile("Checkpoint (\\d+): ([\\d.]+) s(?: \\(([+-][\\d.]+) s\\))?");
        for (int n : new int[] {1, 2}) {
            for (String m : messagesIn.getOrDefault(n, List.of())) {
                var mm = split.matcher(m);
                if (!mm.matches()) {
                    continue;
                }
                int k = Integer.parseInt(mm.group(1));
                double t = Double.parseDouble(mm.group(2));
                if (n == 1) {
                    ok &= mm.group(3) == null;
                    run1.put(k, t);
                } else {
                    checked++;
                    ok &= mm.group(3) != null && run1.containsKey(k) && Math.abs(t - run1.get(k) - Double.parseDouble(mm.group(3))) < 0.011;
                }
            }
        }
        check(checked == 2 && ok, "run 2's splits compare with run 1's at both checkpoints " + messagesIn.get(1) + " " + messagesIn.get(2));
    }

    /**
     * Carol's /replay of the report: every mannequin she saw moved along one recorded entity's
     * path, in order; the block Bob placed showed as it was at the report's start to her alone;
     * after /replay stop her world and position are hers again.
     */
    static void checkReplay(Reader rep, List<JsonObject> log) {
        Map<Integer, List<Pose>> paths = new HashMap<>();
        rep.forEachTick(rep.header().firstTick().orElseThrow(), rep.header().lastTick().orElseThrow(), t -> {
            for (Event ev : t.events()) {
                switch (ev) {
                    case Event.EntityAdd a -> paths.computeIfAbsent(a.entity(), k -> new ArrayList<>()).add(a.pose());
                    case Event.Moved m -> paths.computeIfAbsent(m.entity(), k -> new ArrayList<>()).add(m.pose());
                    case Event.Teleport m -> paths.computeIfAbsent(m.entity(), k -> new ArrayList<>()).add(m.pose());
                    default -> {}
                }
            }
        });
        // Entities the report holds from before its first tick start in its keyframe: their pose there too.
        var first = rep.seek(rep.header().firstTick().orElseThrow());
        for (var e : first.entities()) {
            paths.computeIfAbsent(e.id(), k -> new ArrayList<>()).add(0, e.pose());
        }
        Map<Integer, List<double[]>> seen = new LinkedHashMap<>();
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, String> profiles = new HashMap<>();
        JsonObject before = null, block = null, after = null;
        for (JsonObject o : log) {
            if (!o.get("bot").getAsString().equals("Carol")) {
                continue;
            }
            switch (o.get("type").getAsString()) {
                case "replay-entity" -> {
                    seen.computeIfAbsent(o.get("id").getAsInt(), k -> new ArrayList<>())
                            .add(new double[] {num(o, "x"), num(o, "y"), num(o, "z")});
                    if (o.has("name") && !o.get("name").isJsonNull()) {
                        names.put(o.get("id").getAsInt(), o.get("name").getAsString());
                    }
                }
                case "replay-profile" -> profiles.put(o.get("id").getAsInt(), o.get("profile").getAsString());
                case "replay-before" -> before = o;
                case "replay-block" -> block = o;
                case "replay-after" -> after = o;
                default -> {}
            }
        }
        check(before != null && block != null && after != null, "Carol logged the replay's start, block and end");
        if (before == null || block == null || after == null) {
            return;
        }
        int positions = seen.values().stream().mapToInt(List::size).sum();
        check(seen.size() >= 3 && positions >= 30, "Carol saw " + seen.size() + " replayed players (mannequins), "
                + positions + " positions");
        java.util.Set<String> shownNames = new java.util.TreeSet<>();
        for (Map.Entry<Integer, List<double[]>> m : seen.entrySet()) {
            String name = names.get(m.getKey());
            EntityInfo info = name == null ? null
                    : rep.entities().stream().filter(i -> name.equals(i.name())).findFirst().orElse(null);
            List<Pose> path = info == null ? List.of() : paths.getOrDefault(info.id(), List.of());
            check(info != null && shownNames.add(name) && followsPath(m.getValue(), path),
                    "mannequin " + m.getKey() + " named " + name + " (" + m.getValue().size()
                            + " positions) moved along that player's recorded path in the report, in order");
            // Its profile (what the client draws its skin from): the recorded player's UUID and name.
            String profile = profiles.get(m.getKey());
            check(info != null && info.uuid() != null && profile != null
                            && profile.toLowerCase().replace("-", "").contains(info.uuid().toString().replace("-", ""))
                            && profile.contains("\"" + name + "\""),
                    "mannequin " + m.getKey() + " (" + name + ") has the recorded player's profile, UUID "
                            + (info == null ? null : info.uuid()) + ": " + profile);
        }
        List<String> reportNames = rep.entities().stream().map(EntityInfo::name).filter(java.util.Objects::nonNull)
                .filter(n -> !n.startsWith("minecraft:")).sorted().toList();
        check(shownNames.equals(new java.util.TreeSet<>(reportNames)),
                "the replay showed every player of the report " + reportNames + ": " + shownNames);
        check(block.get("block").getAsString().equals("minecraft:air") && block.get("alice").getAsString().equals("minecraft:stone"),
                "during the replay Carol sees (3, 40, 3) as at the report's start (" + block.get("block").getAsString()
                        + "), Alice the world's " + block.get("alice").getAsString());
        check(after.get("block").getAsString().equals("minecraft:stone") && after.get("mannequinsLeft").getAsInt() == 0
                        && Math.abs(num(after, "x") - num(before, "x")) < 0.01 && Math.abs(num(after, "y") - num(before, "y")) < 0.01
                        && Math.abs(num(after, "z") - num(before, "z")) < 0.01,
                "after /replay stop Carol has the world's block (" + after.get("block").getAsString() + "), no mannequin ("
                        + after.get("mannequinsLeft") + ") and her place back");
    }

    /** Whether every point lies on the path (within 0.05 block of its segments or poses), in order. */
    static boolean followsPath(List<double[]> points, List<Pose> path) {
        int seg = 0;
        for (double[] g : points) {
            boolean found = false;
            for (int k = seg; k < path.size(); k++) {
                Pose a = path.get(k);
                Pose b = k + 1 < path.size() ? path.get(k + 1) : a;
                if (segmentDistance(g, a, b) <= 0.05) {
                    seg = k;
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    /** Distance from point g to the segment a-b. */
    static double segmentDistance(double[] g, Pose a, Pose b) {
        double ax = a.x(), ay = a.y(), az = a.z();
        double dx = b.x() - ax, dy = b.y() - ay, dz = b.z() - az;
        double len = dx * dx + dy * dy + dz * dz;
        double t = len == 0 ? 0 : Math.max(0, Math.min(1, ((g[0] - ax) * dx + (g[1] - ay) * dy + (g[2] - az) * dz) / len));
        double px = ax + t * dx - g[0], py = ay + t * dy - g[1], pz = az + t * dz - g[2];
        return Math.sqrt(px * px + py * py + pz * pz);
    }

    static String lastChat(List<JsonObject> log, String bot) {
        String line = null;
        for (JsonObject o : log) {
            if (o.get("bot").getAsString().equals(bot) && o.get("type").getAsString().equals("chat")) {
                line = o.get("text").getAsString();
            }
        }
        return line;
    }

    /**
     * The first sent state from {@code from} on that is {@code p} to the recording's precision
     * (1/8192 block, 0.01 degree), else the first within the tolerance (0.01 block), else
     * {@code sent.size()}: a bot moving slowly sends states closer than the tolerance.
     */
    static int nextMatch(List<Move> sent, int from, Pose p) {
        int loose = sent.size();
        for (int k = from; k < sent.size(); k++) {
            Move m = sent.get(k);
            if (same(m, p)) {
                double d = Math.max(Math.abs(m.x() - p.x()), Math.max(Math.abs(m.y() - p.y()), Math.abs(m.z() - p.z())));
                if (d <= 0.5 / Pose.POSITION_SCALE + 1e-9) {
                    return k;
                }
                loose = Math.min(loose, k);
            }
        }
        return loose;
    }

    static boolean same(Move m, Pose p) {
        return Math.abs(m.x() - p.x()) <= POS_TOLERANCE && Math.abs(m.y() - p.y()) <= POS_TOLERANCE
                && Math.abs(m.z() - p.z()) <= POS_TOLERANCE && angle(m.yaw(), p.yaw()) <= ANGLE_TOLERANCE
                && angle(m.pitch(), p.pitch()) <= ANGLE_TOLERANCE;
    }

    static double angle(double a, double b) {
        double d = Math.abs(a - b) % 360;
        return Math.min(d, 360 - d);
    }

    /** The distinct consecutive states the bot sent, not counting those at the pose it was added at. */
    static long distinctStates(List<Move> sent, Pose added) {
        long n = 0;
        Move prev = null;
        for (Move m : sent) {
            if ((prev == null || differs(m, prev)) && (added == null || !same(m, added))) {
                n++;
            }
            prev = m;
        }
        return n;
    }

    /** Whether two sent states differ beyond what a recording keeps (1/8192 block, 0.01 degree). */
    static boolean differs(Move a, Move b) {
        double q = 0.5 / Pose.POSITION_SCALE;
        return Math.abs(a.x() - b.x()) > q || Math.abs(a.y() - b.y()) > q || Math.abs(a.z() - b.z()) > q
                || angle(a.yaw(), b.yaw()) > 0.01 || angle(a.pitch(), b.pitch()) > 0.01;
    }

    static double num(JsonObject o, String key) {
        return o.get(key) == null || o.get(key).isJsonNull() ? Double.NaN : o.get(key).getAsDouble();
    }

    static String fmt(Pose p) {
        return String.format("(%.4f, %.4f, %.4f, yaw %.3f, pitch %.3f)", p.x(), p.y(), p.z(), p.yaw(), p.pitch());
    }
}
