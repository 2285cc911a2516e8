package org.cfx;

import java.util.Objects;

/**
 * A special code declared for schema inference ({@link Dataset#inferCsv}): a cell holding
 * {@code code}, or the text {@code label} itself (e.g. {@code "NA"}), is in this special state.
 *
 * @param code the code, e.g. −7
 * @param label the state's name, e.g. "condition not met"
 * @param column the column it applies to, or {@code null} for every numeric column where it occurs
 */
public record SpecialCode(double code, String label, String column) {
    public SpecialCode {
        Objects.requireNonNull(label, "label");
    }

    /** A code that applies to every numeric column where it occurs. */
    public SpecialCode(double code, String label) {
        this(code, label, null);
    }
}
