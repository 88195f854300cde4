package io.tickreel.minestom;

import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;
import net.minestom.server.MinecraftServer;
import net.minestom.server.command.builder.Command;
import net.minestom.server.command.builder.arguments.ArgumentStringArray;
import net.minestom.server.command.builder.arguments.ArgumentType;
import net.minestom.server.command.builder.arguments.ArgumentWord;
import net.minestom.server.command.builder.suggestion.SuggestionEntry;
import net.minestom.server.entity.Player;

/**
 * {@code /report <player> <reason>}: the reported player's last minutes from shadow play, written
 * and filed in the catalog; the reporter is told {@code Report #ID filed against NAME} once it is.
 */
final class ReportCommand extends Command {
    ReportCommand(TickreelMinestom tickreel) {
        super("report");
        ArgumentWord target = ArgumentType.Word("player");
        target.setSuggestionCallback((sender, context, suggestion) -> {
            for (Player p : MinecraftServer.getConnectionManager().getOnlinePlayers()) {
                suggestion.addEntry(new SuggestionEntry(p.getUsername()));
            }
        });
        ArgumentStringArray reason = ArgumentType.StringArray("reason");
        setDefaultExecutor((sender, context) ->
                sender.sendMessage(Component.text("Usage: /report <player> <reason>", NamedTextColor.RED)));
        addSyntax((sender, context) -> {
            if (!(sender instanceof Player reporter)) {
                sender.sendMessage(Component.text("Only players can report."));
                return;
            }
            String name = context.get(target);
            String why = String.join(" ", context.get(reason));
            Player reported = MinecraftServer.getConnectionManager().getOnlinePlayerByUsername(name);
            if (reported == null) {
                reporter.sendMessage(Component.text("No player " + name + " online.", NamedTextColor.RED));
                return;
            }
            try {
                tickreel.report(reporter, reported, why).whenComplete((report, err) -> {
                    if (err != null) {
                        reporter.sendMessage(Component.text("Report against " + name + " failed: "
                                + rootMessage(err), NamedTextColor.RED));
                    } else {
                        reporter.sendMessage(Component.text("Report #" + report.id() + " filed against "
                                + report.reportedName(), NamedTextColor.GREEN));
                    }
                });
                reporter.sendMessage(Component.text("Reporting " + name + ": capturing "
                        + tickreel.reportAfter().toSeconds() + " s more.", NamedTextColor.YELLOW));
            } catch (IllegalArgumentException | IllegalStateException e) {
                reporter.sendMessage(Component.text("Cannot report " + name + ": " + e.getMessage(), NamedTextColor.RED));
            }
        }, target, reason);
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
