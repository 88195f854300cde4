package io.tickreel.minestom;

import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;
import net.minestom.server.command.builder.Command;
import net.minestom.server.command.builder.arguments.ArgumentType;
import net.minestom.server.command.builder.arguments.ArgumentWord;
import net.minestom.server.command.builder.arguments.number.ArgumentInteger;
import net.minestom.server.entity.Player;

/**
 * {@code /race best|pb|rank N}: which run the player's ghost replays from their next run on (the
 * board's best, their personal best, or the board's run at rank N).
 */
final class RaceCommand extends Command {
    RaceCommand(TickreelMinestom tickreel) {
        super("race");
        ArgumentWord what = ArgumentType.Word("what").from("best", "pb", "rank");
        ArgumentInteger n = ArgumentType.Integer("n");
        n.min(1);
        setDefaultExecutor((sender, context) -> sender.sendMessage(Component.text(
                "Usage: /race best | pb | rank N", NamedTextColor.RED)));
        addSyntax((sender, context) -> {
            if (!(sender instanceof Player p)) {
                return;
            }
            switch (context.get(what)) {
                case "best" -> choose(tickreel, p, GhostChoice.best());
                case "pb" -> choose(tickreel, p, GhostChoice.personalBest());
                default -> p.sendMessage(Component.text("Usage: /race rank N", NamedTextColor.RED));
            }
        }, what);
        addSyntax((sender, context) -> {
            if (sender instanceof Player p) {
                if (!context.get(what).equals("rank")) {
                    p.sendMessage(Component.text("Usage: /race best | pb | rank N", NamedTextColor.RED));
                    return;
                }
                choose(tickreel, p, GhostChoice.rank(context.get(n)));
            }
        }, what, n);
    }

    private static void choose(TickreelMinestom tickreel, Player p, GhostChoice choice) {
        tickreel.setGhostChoice(p, choice);
        p.sendMessage(Component.text("Your ghost: " + choice.describe() + ".", NamedTextColor.AQUA));
    }
}
