package io.tickreel.minestom;

import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;
import net.minestom.server.command.builder.Command;
import net.minestom.server.command.builder.arguments.ArgumentType;
import net.minestom.server.command.builder.arguments.ArgumentWord;
import net.minestom.server.entity.Player;

/**
 * {@code /replay <report id | file name>} plays a report's recording, or a recording, run or
 * report file of the data folder, to the player who asks; {@code /replay pause|play|reverse|forward|stop},
 * {@code /replay speed X} (0.25 to 16), {@code /replay seek TICK} control it.
 */
final class ReplayCommand extends Command {
    ReplayCommand(TickreelMinestom tickreel) {
        super("replay");
        ArgumentWord action = ArgumentType.Word("what");
        ArgumentWord value = ArgumentType.Word("value");
        setDefaultExecutor((sender, context) -> sender.sendMessage(Component.text(
                "Usage: /replay <report id | file> | pause | play | reverse | forward | speed X | seek TICK | stop",
                NamedTextColor.RED)));
        addSyntax((sender, context) -> {
            if (sender instanceof Player p) {
                tickreel.replayCommand(p, context.get(action), null);
            }
        }, action);
        addSyntax((sender, context) -> {
            if (sender instanceof Player p) {
                tickreel.replayCommand(p, context.get(action), context.get(value));
            }
        }, action, value);
    }
}
