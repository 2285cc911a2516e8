package org.cfx;

/** Directions a mutable feature may move in ({@code cfx_direction}). */
public enum Direction {
    /** Up or down. */
    ANY(0),
    /** Only up (e.g. age). */
    INCREASE_ONLY(1),
    /** Only down. */
    DECREASE_ONLY(2);

    final int code;

    Direction(int code) {
        this.code = code;
    }
}
