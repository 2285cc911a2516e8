package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A mutable configuration builder ({@code cfx_config_builder}). Not thread-safe. {@link #build()}
 * consumes it (the native builder moves into the configuration); closing an unbuilt builder frees
 * it. Each setter validates in the library and throws {@link CfxException} INVALID_ARGUMENT.
 */
public final class ConfigBuilder extends NativeResource {
    ConfigBuilder() {
        super(Native.KIND_CONFIG_BUILDER, newHandle());
    }

    private static long newHandle() {
        Native.load();
        return NativeGenerated.configBuilderNew();
    }

    private interface Setter {
        void set(long b);
    }

    private ConfigBuilder with(Setter s) {
        try {
            s.set(handle());
        } finally {
            Reference.reachabilityFence(this);
        }
        return this;
    }

    /** Time limit per solve in seconds (> 0). */
    public ConfigBuilder timeLimit(double seconds) {
        return with(b -> NativeGenerated.configBuilderSetTimeLimit(b, seconds));
    }

    /** Solver threads (≥ 1). */
    public ConfigBuilder threads(int threads) {
        return with(b -> NativeGenerated.configBuilderSetThreads(b, Utf8.count(threads, "threads")));
    }

    /** Relative MIP gap (≥ 0). */
    public ConfigBuilder mipGap(double gap) {
        return with(b -> NativeGenerated.configBuilderSetMipGap(b, gap));
    }

    /** Score margin beyond the threshold (≥ 0). */
    public ConfigBuilder margin(double margin) {
        return with(b -> NativeGenerated.configBuilderSetMargin(b, margin));
    }

    /**
     * How many counterfactuals {@link Coherent#explainDiverse} returns at most, the optimum
     * included (≥ 1; 1 = the optimum alone); for {@link Copa#plan}, the number of options.
     */
    public ConfigBuilder nDiverse(int n) {
        return with(b -> NativeGenerated.configBuilderSetNDiverse(b, Utf8.count(n, "n_diverse")));
    }

    public ConfigBuilder diversityRule(DiversityRule rule) {
        Objects.requireNonNull(rule, "rule");
        return with(b -> NativeGenerated.configBuilderSetDiversityRule(b, rule.code));
    }

    /** The solver of coherent counterfactuals (default {@link Solver#AUTO}). */
    public ConfigBuilder solver(Solver solver) {
        java.util.Objects.requireNonNull(solver, "solver");
        return with(b -> NativeGenerated.configBuilderSetSolver(b, solver.code));
    }

    /**
     * Branch-and-bound nodes the exact separable solver may visit per solve (≥ 1; default
     * 200,000). Past it, solver {@link Solver#AUTO} hands the solve to HiGHS and {@link
     * Solver#SEPARABLE} ends it unproven (outcome UNKNOWN; waiting advice not proven, {@link
     * WaitingAdvice#proven()}). Deterministic, unlike the time limit.
     */
    public ConfigBuilder nodeLimit(long nodes) {
        return with(b -> NativeGenerated.configBuilderSetNodeLimit(b, Utf8.count(nodes, "nodes")));
    }

    /** Solver by its C number ({@code cfx_solver_choice}, validated by the library). */
    public ConfigBuilder solver(int solver) {
        return with(b -> NativeGenerated.configBuilderSetSolver(b, solver));
    }

    /** Diversity rule by its C number (validated by the library). */
    public ConfigBuilder diversityRule(int rule) {
        return with(b -> NativeGenerated.configBuilderSetDiversityRule(b, rule));
    }

    /** Monte Carlo sample count K (≥ 1). */
    public ConfigBuilder nSamples(int k) {
        return with(b -> NativeGenerated.configBuilderSetNSamples(b, Utf8.count(k, "n_samples")));
    }

    /** The m > 0 of the invalidation bound. */
    public ConfigBuilder boundM(double m) {
        return with(b -> NativeGenerated.configBuilderSetBoundM(b, m));
    }

    /** Target rate in [0, 1] and tolerance ε ≥ 0. */
    public ConfigBuilder target(double target, double epsilon) {
        return with(b -> NativeGenerated.configBuilderSetTarget(b, target, epsilon));
    }

    /**
     * Book runs ({@link Portfolio#explain}, {@link Revalidation#ledger}) resume an interrupted run
     * of the same output from its partial file ({@code cfx_config_builder_set_resume}): the kept
     * lines are checked against the input and the run goes on, the output byte for byte an
     * uninterrupted run's; a partial file of another run is refused ({@link Status#INVALID_ARGUMENT}).
     */
    public ConfigBuilder resume(boolean resume) {
        return with(b -> NativeGenerated.configBuilderSetResume(b, resume));
    }

    /**
     * Whether the exact engine, on a ReLU network, tightens each unit's bounds by LP over the
     * applicant's actionable box ({@code cfx_config_builder_set_mlp_bound_tightening}; default true);
     * false keeps the interval bounds, the textbook big-M program. Both prove the same optimum.
     */
    public ConfigBuilder mlpBoundTightening(boolean tighten) {
        return with(b -> NativeGenerated.configBuilderSetMlpBoundTightening(b, tighten));
    }

    /**
     * The deployment report's names of the models ({@code cfx_config_builder_set_model_labels},
     * {@link Revalidation#ledger}): {@code oldLabel} for the model(s) the advice was issued under,
     * {@code newLabel} for the new model, each shown beside its fingerprint; null leaves one unset.
     * An empty label: {@link Status#INVALID_ARGUMENT}.
     */
    public ConfigBuilder modelLabels(String oldLabel, String newLabel) {
        return with(b -> NativeGenerated.configBuilderSetModelLabels(
                b, Utf8.cstrOrNull(oldLabel, "oldLabel"), Utf8.cstrOrNull(newLabel, "newLabel")));
    }

    /** Seed of every random step (an unsigned 64-bit value in a long). */
    public ConfigBuilder seed(long seed) {
        return with(b -> NativeGenerated.configBuilderSetSeed(b, seed));
    }

    /** COPA loss weights (≥ 0). */
    public ConfigBuilder copaWeights(double robustWeight, double diversityWeight) {
        return with(b -> NativeGenerated.configBuilderSetCopaWeights(b, robustWeight, diversityWeight));
    }

    /**
     * Robust advice from the exact engine (coherent methods, logistic models and tree ensembles):
     * every answer keeps its invalidation rate under Gaussian slips of variance {@code sigma2} at
     * most {@code invalidationTarget} (strictly between 0 and 1), proven optimal (trees: the
     * answer's whole box of slips is accepted, proven by the tree search).
     */
    public ConfigBuilder robustAdvice(double sigma2, double invalidationTarget) {
        return with(b -> NativeGenerated.configBuilderSetRobustAdvice(b, sigma2, invalidationTarget));
    }

    /**
     * The box of robust advice on a tree ensemble (default {@link RobustBox#REALS}): with {@link
     * RobustBox#REACHABLE_VALUES} every value the applicant can actually end at (slips clipped to
     * the feature's range and rounded to the data's grid) must be accepted, and Γ is estimated under
     * the same slips. Takes effect with {@link #robustAdvice}; a logistic model refuses reachable
     * values.
     */
    public ConfigBuilder robustBox(RobustBox box) {
        java.util.Objects.requireNonNull(box, "box");
        return with(b -> NativeGenerated.configBuilderSetRobustBox(b, box.code));
    }

    /** The robust box by its C number ({@code cfx_robust_box}, validated by the library). */
    public ConfigBuilder robustBox(int box) {
        return with(b -> NativeGenerated.configBuilderSetRobustBox(b, box));
    }

    /** COPA ambiguity radius ρ ≥ 0. */
    public ConfigBuilder copaRadius(double rho) {
        return with(b -> NativeGenerated.configBuilderSetCopaRadius(b, rho));
    }

    /** RL episodes (≥ 1) and steps per episode (≥ 1). */
    public ConfigBuilder rlEpisodes(int episodes, int maxSteps) {
        return with(
                b -> NativeGenerated.configBuilderSetRlEpisodes(b, Utf8.count(episodes, "episodes"), Utf8.count(maxSteps, "max_steps")));
    }

    /** RL discount, learning rates, mini-batch size and replay capacity. */
    public ConfigBuilder rlTraining(
            double discount, double learningRateActor, double learningRateParam, int batchSize, int replayCapacity) {
        return with(
                b -> NativeGenerated.configBuilderSetRlTraining(
                        b,
                        discount,
                        learningRateActor,
                        learningRateParam,
                        Utf8.count(batchSize, "batch_size"),
                        Utf8.count(replayCapacity, "replay_capacity")));
    }

    /** RL ε-greedy exploration from start down to end. */
    public ConfigBuilder rlExploration(double start, double end) {
        return with(b -> NativeGenerated.configBuilderSetRlExploration(b, start, end));
    }

    /** RL hidden-layer widths. */
    public ConfigBuilder rlHidden(int... widths) {
        Objects.requireNonNull(widths, "widths");
        long[] w = new long[widths.length];
        for (int i = 0; i < widths.length; i++) {
            w[i] = Utf8.count(widths[i], "hidden width");
        }
        return with(b -> NativeGenerated.configBuilderSetRlHidden(b, w));
    }

    /** The immutable configuration. Consumes this builder (also when building fails). */
    public Config build() {
        long b;
        try {
            b = release();
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Config(NativeGenerated.configBuild(b));
    }
}
