package org.cfx;

/** The actionability presets of the bundled datasets ({@code preset} of {@code cfx_schema_advice_preset}). */
public enum AdvicePreset {
    /**
     * German credit: age only by waiting; no move into "no checking account", "critical account",
     * "unknown/ no savings account" or "for free" housing; credit amount −50 %/+25 %, duration ±12
     * months.
     */
    GERMAN_CREDIT(0),
    /** FICO HELOC: the month-counting features move only by waiting. */
    HELOC(1);

    final int code;

    AdvicePreset(int code) {
        this.code = code;
    }
}
