package io.tickreel;

/**
 * Which chat lines a {@linkplain ShadowBuffer#report report} keeps ({@link
 * ReportOptions.Builder#chat}). Whatever the choice, other events stay as the radius keeps them.
 */
public enum ReportChat {
    /**
     * Every line the reported player sent (any channel), and the public lines of players within
     * the radius at the tick they sent them; never another player's private, team or game-defined
     * channel, and no line without a sender (the default).
     */
    NEAR,
    /** Also every public and system line of the server, wherever its sender stood; still no private or team line of others. */
    PUBLIC,
    /** Every chat line of the window, private and team chat of others too (for a server whose rules let staff read them). */
    ALL
}
