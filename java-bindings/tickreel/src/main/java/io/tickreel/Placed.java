package io.tickreel;

/**
 * A place on a course's board: a rank (1 is the best; ties go to the earlier run) and the run.
 * @param rank the rank, or 0 where a query has none (recent runs, a registration)
 * @param run the run
 */
public record Placed(long rank, Run run) {}
