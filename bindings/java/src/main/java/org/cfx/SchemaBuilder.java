package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A schema under construction ({@code cfx_schema_builder}). Not thread-safe. Features are added
 * in order; {@link #specialState} and {@link #actionability} apply to the last one added. {@link
 * #build()} validates and consumes the builder (also when validation fails).
 */
public final class SchemaBuilder extends NativeResource {
    SchemaBuilder() {
        super(Native.KIND_SCHEMA_BUILDER, newHandle());
    }

    private static long newHandle() {
        Native.load();
        return NativeGenerated.schemaBuilderNew();
    }

    private interface Step {
        void run(long b);
    }

    private SchemaBuilder with(Step s) {
        try {
            s.run(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** A contiguous feature with raw range [lower, upper]; {@code integer} for whole numbers. */
    public SchemaBuilder contiguous(String name, double lower, double upper, boolean integer) {
        byte[] n = Utf8.cstr(name, "name");
        return with(b -> NativeGenerated.schemaBuilderAddContiguous(b, n, lower, upper, integer));
    }

    /** A categorical feature; raw values are indices into {@code levels}. */
    public SchemaBuilder categorical(String name, String... levels) {
        Objects.requireNonNull(levels, "levels");
        byte[] n = Utf8.cstr(name, "name");
        byte[][] l = new byte[levels.length][];
        for (int i = 0; i < levels.length; i++) {
            l[i] = Utf8.cstr(levels[i], "levels[" + i + "]");
        }
        return with(b -> NativeGenerated.schemaBuilderAddCategorical(b, n, l));
    }

    /**
     * Orders the levels of the last (categorical) feature from worst to best (all or some). With an
     * order, the feature's direction speaks of it ({@link Direction#INCREASE_ONLY}: only to a better
     * listed level) instead of the level index; every method honours it. Checked by {@link #build()}.
     */
    public SchemaBuilder levelOrder(String... levels) {
        Objects.requireNonNull(levels, "levels");
        byte[][] l = new byte[levels.length][];
        for (int i = 0; i < levels.length; i++) {
            l[i] = Utf8.cstr(levels[i], "levels[" + i + "]");
        }
        return with(b -> NativeGenerated.schemaBuilderSetLevelOrder(b, l));
    }

    /** A special code of the last (contiguous) feature, e.g. −7 "no delinquency record". */
    public SchemaBuilder specialState(double code, String label) {
        byte[] l = Utf8.cstr(label, "label");
        return with(b -> NativeGenerated.schemaBuilderAddSpecialState(b, code, l));
    }

    /** Actionability of the last feature added. */
    public SchemaBuilder actionability(boolean mutable, Direction direction) {
        Objects.requireNonNull(direction, "direction");
        return with(b -> NativeGenerated.schemaBuilderSetActionability(b, mutable, direction.code));
    }

    /** Actionability with a direction given by its C number (validated by the library). */
    public SchemaBuilder actionability(boolean mutable, int direction) {
        return with(b -> NativeGenerated.schemaBuilderSetActionability(b, mutable, direction));
    }

    /**
     * Actionable bounds of the last (contiguous) feature: advice stays in [lower, upper] (raw units,
     * inside the feature's range; checked by {@link #build()}).
     */
    public SchemaBuilder actionableBounds(double lower, double upper) {
        return with(b -> NativeGenerated.schemaBuilderSetActionableBounds(b, lower, upper));
    }

    /**
     * Advice a person can carry out (issue 43), for the last (contiguous) feature: every value advice
     * moves it to is a whole multiple of {@code adviceStep} (0: the data's own grid), and a change of
     * it is at least {@code minChange} (0: any change); staying put is always allowed. Negative or
     * non-finite values are {@code INVALID_ARGUMENT}; a step off the data's grid is refused by
     * {@link #build()}.
     */
    public SchemaBuilder adviceGrid(double adviceStep, double minChange) {
        return with(b -> NativeGenerated.schemaBuilderSetAdviceGrid(b, adviceStep, minChange));
    }

    /** Cost scale (&gt; 0) of the last feature: multiplies its distance weights. */
    public SchemaBuilder costScale(double costScale) {
        return with(b -> NativeGenerated.schemaBuilderSetCostScale(b, costScale));
    }

    /**
     * Forbids the move from state {@code from} to state {@code to} of the last feature: states are
     * {@code "value"}, a special state's label or code, a level name, or {@code "*"} (any state).
     */
    public SchemaBuilder forbidTransition(String from, String to) {
        byte[] f = Utf8.cstr(from, "from");
        byte[] t = Utf8.cstr(to, "to");
        return with(b -> NativeGenerated.schemaBuilderAddForbiddenTransition(b, f, t));
    }

    /** Puts the last (contiguous) feature on the grid lower + k·step (checked by {@link #build()}). */
    public SchemaBuilder step(double step) {
        return with(b -> NativeGenerated.schemaBuilderSetStep(b, step));
    }

    /**
     * Change limits of the last (contiguous) feature, relative to the applicant's own value (issue
     * #16): the largest increase and the largest decrease, each {@link ChangeLimit#NONE}, in raw
     * units or as a fraction of the applicant's value. Non-negative, checked by {@link #build()}.
     */
    public SchemaBuilder changeLimits(ChangeLimit maxIncrease, ChangeLimit maxDecrease) {
        Objects.requireNonNull(maxIncrease, "maxIncrease");
        Objects.requireNonNull(maxDecrease, "maxDecrease");
        return with(b -> NativeGenerated.schemaBuilderSetChangeLimits(
                b, maxIncrease.kind.code, maxIncrease.value, maxDecrease.kind.code, maxDecrease.value));
    }

    /**
     * The last feature grows by {@code perMonth} raw units per month of waiting and moves no other
     * way (it becomes immutable to actions); {@code endsIn} (null: none) names the special state it
     * enters past its upper bound. The schema then needs {@link #waiting}.
     */
    public SchemaBuilder timeGrowth(double perMonth, String endsIn) {
        byte[] e = Utf8.cstrOrNull(endsIn, "endsIn");
        return with(b -> NativeGenerated.schemaBuilderSetTimeGrowth(b, perMonth, e));
    }

    /**
     * Closes the last feature's time window early: once its value would pass {@code endsAfter}
     * (within the feature's range) it enters the state named by {@link #timeGrowth}'s {@code
     * endsIn}, instead of only past its upper bound (HELOC's months since the last inquiry read −7
     * after 23 months). Call after {@code timeGrowth} with an {@code endsIn}; checked by {@link
     * #build()}.
     */
    public SchemaBuilder timeGrowthEndsAfter(double endsAfter) {
        return with(b -> NativeGenerated.schemaBuilderSetTimeGrowthEndsAfter(b, endsAfter));
    }

    /**
     * Says what waiting does once the last feature's value would pass its upper bound: {@code
     * refuse} true refuses such a wait (the applicant may wait only as long as the feature stays
     * within its range; JSON {@code "past_upper": "refuse"}), false caps the value at the bound (the
     * default). The bound is the data's largest value, not the end of time: a capped value is one
     * the bureau would not report. Call after {@link #timeGrowth}; refusing with an {@code endsIn}
     * state is INVALID_SCHEMA from {@link #build()}.
     */
    public SchemaBuilder timeGrowthRefusePastUpper(boolean refuse) {
        return with(b -> NativeGenerated.schemaBuilderSetTimeGrowthRefusePastUpper(b, refuse));
    }

    /**
     * Limits where waiting may lead the last feature: a wait that would move its value outside
     * {@code [low, high]} (raw units) is not advised by any method (JSON {@code "advised_range":
     * [low, high]}); a wait that leaves the value unchanged or carries it into its {@code endsIn}
     * state is not judged by it. A month counter grows whether or not accepted applicants are where
     * it lands; {@link Plausibility#adviseWaits} sets these ranges from the accepted applicants'
     * 1–99% range. Call after {@link #timeGrowth} (INVALID_ARGUMENT when the feature does not grow
     * with time, or for a non-finite bound); {@code low > high} is INVALID_SCHEMA from {@link
     * #build()}.
     */
    public SchemaBuilder timeGrowthAdvisedRange(double low, double high) {
        return with(b -> NativeGenerated.schemaBuilderSetTimeGrowthAdvisedRange(b, low, high));
    }

    /**
     * One duration band of the last (categorical) feature: waiting {@code months} (≥ 1) from the
     * start of band {@code level} moves it to the next level of its {@link #levelOrder}; the feature
     * then moves only by waiting. Call once per band (German credit's employment: "... &lt; 1 year"
     * 12, "1 &lt;= ... &lt; 4 years" 36). An unknown level is NOT_FOUND here; a band without a next
     * level is INVALID_SCHEMA from {@link #build()}.
     */
    public SchemaBuilder bandMonths(String level, int months) {
        if (months < 0) {
            throw new IllegalArgumentException("months must be >= 0, got " + months);
        }
        byte[] l = Utf8.cstr(level, "level");
        return with(b -> NativeGenerated.schemaBuilderSetBandMonths(b, l, months));
    }

    /**
     * At most {@code cap} (≥ 1) features changed by one piece of advice (what waiting moves is not
     * counted); every method honours it. Without a call there is no cap; 0 is INVALID_ARGUMENT.
     */
    public SchemaBuilder maxFeaturesChanged(int cap) {
        if (cap < 0) {
            throw new IllegalArgumentException("cap must be >= 1, got " + cap);
        }
        return with(b -> NativeGenerated.schemaBuilderSetMaxFeaturesChanged(b, cap));
    }

    /**
     * Gives the schema a "wait m months" action: its cost per month (in the distance's units) and
     * the longest wait (0 to 600 months).
     */
    public SchemaBuilder waiting(double costPerMonth, int maxMonths) {
        if (maxMonths < 0) {
            throw new IllegalArgumentException("maxMonths must be >= 0, got " + maxMonths);
        }
        return with(b -> NativeGenerated.schemaBuilderSetWaiting(b, costPerMonth, maxMonths));
    }

    /** The immutable schema ({@link CfxException} INVALID_SCHEMA when inconsistent). Consumes the builder. */
    public Schema build() {
        long b;
        try {
            b = release();
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Schema(NativeGenerated.schemaBuild(b));
    }
}
