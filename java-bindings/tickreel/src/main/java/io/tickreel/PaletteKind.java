package io.tickreel;

/**
 * Which palette of the recording names an id: world events carry block states, items and damage
 * causes as small ids, and the palette (metadata {@code tickreel.palette}) names them, e.g. block
 * state 1 as {@code "minecraft:stone"}, so that a recording explains itself across game versions.
 * See {@link Recorder#registerName}, {@link ReelWriter#registerName} and {@link Reader#paletteName}.
 */
public enum PaletteKind {
    /** Block states ({@link Event.BlockChange#state()}). */
    BLOCK(0),
    /** Items ({@link Event.Use#item()}, {@link Event.Equipment#item()}). */
    ITEM(1),
    /** Damage causes ({@link Event.Damage#cause()}). */
    DAMAGE_CAUSE(2);

    private final int code;

    PaletteKind(int code) {
        this.code = code;
    }

    /** The kind's code in the native API ({@code TICKREEL_PALETTE_*}). */
    int code() {
        return code;
    }
}
