package org.cfx;

import java.lang.ref.Reference;

/**
 * The portfolio summary of a {@link Portfolio#explain} output ({@code cfx_portfolio_summary}): the
 * share of declined applicants with recourse, the recourse cost's quantiles and the changes asked
 * most often, overall and per group of a column of the applicants' file. Immutable, thread-safe.
 */
public final class PortfolioSummary extends NativeResource {
    /** One group's (or, for {@link #overall()}, everyone's) counts and cost. */
    public record Group(
            String name,
            long rows,
            long accepted,
            long declined,
            long withRecourse,
            long errors,
            double shareWithRecourse,
            double medianCost,
            double p90Cost) {}

    PortfolioSummary(long handle) {
        super(Native.KIND_PORTFOLIO_SUMMARY, handle);
    }

    /**
     * Summarises {@code output}; with a {@code groupColumn} (null = none) per group of that column
     * of {@code input}: one group per distinct cell when {@code edges} is null or empty, else
     * numeric bands {@code < e0, [e0, e1), ..., >= ek} (a special state of the feature apart).
     */
    public static PortfolioSummary summarize(
            Schema schema, String input, String output, String groupColumn, double[] edges) {
        try {
            return new PortfolioSummary(NativeGenerated.portfolioSummarize(
                    schema.handle(),
                    Utf8.cstrOrNull(input, "input"),
                    Utf8.cstr(output, "output"),
                    Utf8.cstrOrNull(groupColumn, "groupColumn"),
                    edges));
        } finally {
            Reference.reachabilityFence(schema);
        }
    }

    /** The number of groups (0 without a breakdown). */
    public int groupCount() {
        try {
            return Math.toIntExact(NativeGenerated.portfolioSummaryNGroups(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private Group groupAt(long g) {
        double[] v = new double[8];
        try {
            NativeGenerated.portfolioSummaryCounts(handle(), g, v);
            String name = Utf8.str(NativeGenerated.portfolioSummaryGroupName(handle(), g));
            return new Group(name, (long) v[0], (long) v[1], (long) v[2], (long) v[3], (long) v[4], v[5], v[6], v[7]);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Every applicant together. */
    public Group overall() {
        return groupAt(-1);
    }

    /** Group {@code g} (0-based). */
    public Group group(int g) {
        return groupAt(Utf8.index(g, "group"));
    }

    /** {n, mean, min, p10, p25, median, p75, p90, max} of the recourse cost of group {@code g} (-1 = all). */
    public double[] costQuantiles(int g) {
        try {
            return NativeGenerated.portfolioSummaryCostQuantiles(handle(), g);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The summary as a plain-text table with the {@code top} changes asked most often. */
    public String describe(int top) {
        try {
            return Utf8.str(NativeGenerated.portfolioSummaryDescribe(handle(), Utf8.count(top, "top")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The whole summary as JSON. */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.portfolioSummaryToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Draws the summary as an SVG chart into the file {@code path}. */
    public void writeSvg(String title, int top, String path) {
        try {
            NativeGenerated.portfolioSummaryWriteSvg(
                    handle(), Utf8.cstr(title, "title"), Utf8.count(top, "top"), Utf8.cstr(path, "path"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
