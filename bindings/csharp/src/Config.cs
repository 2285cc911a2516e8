using System;

namespace Cfx
{
    /// <summary>
    /// A mutable configuration builder (cfx_config_builder). Setters return the
    /// builder; <see cref="Build"/> consumes it (it is disposed afterwards, in
    /// every case). The wrapper serialises calls with a lock, so sharing it
    /// between threads is safe, if pointless.
    /// </summary>
    public sealed class ConfigBuilder : IDisposable
    {
        private readonly ConfigBuilderHandle h;
        private readonly object gate = new object();

        public ConfigBuilder()
        {
            CfxLibrary.EnsureCompatible();
            ConfigBuilderHandle b;
            int st = Native.cfx_config_builder_new(out b);
            h = Call.Owned(st, b);
        }

        private ConfigBuilderHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.ConfigBuilder");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { lock (gate) h.Dispose(); }

        private delegate int Setter(ConfigBuilderHandle b);

        private ConfigBuilder Set(Setter f)
        {
            lock (gate) Call.Check(f(Handle));
            return this;
        }

        public ConfigBuilder TimeLimit(double seconds) { return Set(b => Native.cfx_config_builder_set_time_limit(b, seconds)); }
        public ConfigBuilder Threads(int threads) { var t = Call.Size(threads, "threads"); return Set(b => Native.cfx_config_builder_set_threads(b, t)); }
        public ConfigBuilder MipGap(double gap) { return Set(b => Native.cfx_config_builder_set_mip_gap(b, gap)); }
        public ConfigBuilder Margin(double margin) { return Set(b => Native.cfx_config_builder_set_margin(b, margin)); }
        /// <summary>How many counterfactuals <see cref="Coherent.ExplainDiverse"/> returns at most, the optimum
        /// included (≥ 1; 1 = the optimum alone); for <see cref="Copa.Plan"/>, the number of options.</summary>
        public ConfigBuilder NDiverse(int n) { var k = Call.Size(n, "n"); return Set(b => Native.cfx_config_builder_set_n_diverse(b, k)); }
        public ConfigBuilder DiversityRule(DiversityRule rule) { return Set(b => Native.cfx_config_builder_set_diversity_rule(b, (int)rule)); }
        /// <summary>The solver of coherent counterfactuals (default Auto).</summary>
        public ConfigBuilder Solver(SolverChoice solver) { return Set(b => Native.cfx_config_builder_set_solver(b, (int)solver)); }
        /// <summary>Branch-and-bound nodes the exact separable solver may visit per solve (≥ 1; default 200,000).
        /// Past it, solver Auto hands the solve to HiGHS and Separable ends it unproven (outcome Unknown; waiting
        /// advice not proven, <see cref="WaitingAdvice.Proven"/>). Deterministic, unlike the time limit.</summary>
        public ConfigBuilder NodeLimit(int nodes) { var n = Call.Size(nodes, "nodes"); return Set(b => Native.cfx_config_builder_set_node_limit(b, n)); }
        public ConfigBuilder NSamples(int k) { var n = Call.Size(k, "k"); return Set(b => Native.cfx_config_builder_set_n_samples(b, n)); }
        public ConfigBuilder BoundM(double m) { return Set(b => Native.cfx_config_builder_set_bound_m(b, m)); }
        public ConfigBuilder Target(double target, double epsilon) { return Set(b => Native.cfx_config_builder_set_target(b, target, epsilon)); }
        /// <summary>Book runs (<see cref="Portfolio.Explain"/>, <see cref="Revalidation.Ledger"/>) resume an
        /// interrupted run of the same output from its partial file: the kept lines are checked against the input and
        /// the run goes on, the output byte for byte an uninterrupted run's; a partial file of another run is refused
        /// (InvalidArgument).</summary>
        public ConfigBuilder Resume(bool resume) { return Set(b => Native.cfx_config_builder_set_resume(b, resume ? 1 : 0)); }
        /// <summary>Whether the exact engine, on a ReLU network, tightens each unit's bounds by LP over the
        /// applicant's actionable box (default true); false keeps the interval bounds, the textbook big-M program.
        /// Both prove the same optimum.</summary>
        public ConfigBuilder MlpBoundTightening(bool tighten) { return Set(b => Native.cfx_config_builder_set_mlp_bound_tightening(b, tighten ? 1 : 0)); }
        /// <summary>The deployment report's names of the models (<see cref="Revalidation.Ledger"/>):
        /// <paramref name="oldLabel"/> for the model(s) the advice was issued under, <paramref name="newLabel"/>
        /// for the new model, each shown beside its fingerprint; null leaves one unset. An empty label:
        /// InvalidArgument.</summary>
        public ConfigBuilder ModelLabels(string oldLabel, string newLabel) { return Set(b => Native.cfx_config_builder_set_model_labels(b, Utf8.Encode(oldLabel), Utf8.Encode(newLabel))); }
        public ConfigBuilder Seed(ulong seed) { return Set(b => Native.cfx_config_builder_set_seed(b, seed)); }
        public ConfigBuilder CopaWeights(double robustWeight, double diversityWeight) { return Set(b => Native.cfx_config_builder_set_copa_weights(b, robustWeight, diversityWeight)); }
        public ConfigBuilder CopaRadius(double rho) { return Set(b => Native.cfx_config_builder_set_copa_radius(b, rho)); }
        /// <summary>Robust advice from the exact engine (coherent methods, logistic models and tree ensembles): every
        /// answer keeps its invalidation rate under Gaussian slips of variance sigma2 at most invalidationTarget,
        /// proven optimal (trees: the answer's whole box of slips is accepted, proven by the tree search).</summary>
        public ConfigBuilder RobustAdvice(double sigma2, double invalidationTarget) { return Set(b => Native.cfx_config_builder_set_robust_advice(b, sigma2, invalidationTarget)); }
        /// <summary>The box of robust advice on a tree ensemble (default <see cref="Cfx.RobustBox.Reals"/>):
        /// with <see cref="Cfx.RobustBox.ReachableValues"/> every value the applicant can actually end at (slips
        /// clipped to the feature's range and rounded to the data's grid) must be accepted, and Γ is estimated
        /// under the same slips. Takes effect with <see cref="RobustAdvice"/>; a logistic model refuses it.</summary>
        public ConfigBuilder RobustBox(Cfx.RobustBox box) { return Set(b => Native.cfx_config_builder_set_robust_box(b, (int)box)); }
        public ConfigBuilder RlEpisodes(int episodes, int maxSteps)
        {
            var e = Call.Size(episodes, "episodes");
            var s = Call.Size(maxSteps, "maxSteps");
            return Set(b => Native.cfx_config_builder_set_rl_episodes(b, e, s));
        }
        public ConfigBuilder RlTraining(double discount, double learningRateActor, double learningRateParam, int batchSize, int replayCapacity)
        {
            var bs = Call.Size(batchSize, "batchSize");
            var rc = Call.Size(replayCapacity, "replayCapacity");
            return Set(b => Native.cfx_config_builder_set_rl_training(b, discount, learningRateActor, learningRateParam, bs, rc));
        }
        public ConfigBuilder RlExploration(double start, double end) { return Set(b => Native.cfx_config_builder_set_rl_exploration(b, start, end)); }
        public ConfigBuilder RlHidden(params int[] hidden)
        {
            if (hidden == null) throw new ArgumentNullException("hidden");
            var hs = new UIntPtr[hidden.Length];
            for (int i = 0; i < hidden.Length; i++) hs[i] = Call.Size(hidden[i], "hidden");
            return Set(b => Native.cfx_config_builder_set_rl_hidden(b, hs, (UIntPtr)hs.Length));
        }

        /// <summary>The immutable configuration. The builder is consumed (disposed) whether or not this succeeds.</summary>
        public Config Build()
        {
            lock (gate)
            {
                var b = Handle;
                ConfigHandle c;
                int st;
                try
                {
                    st = Native.cfx_config_build(b, out c);
                }
                finally
                {
                    // cfx_config_build consumed the builder (success or failure): the
                    // SafeHandle must never free it again.
                    b.SetHandleAsInvalid();
                }
                return new Config(Call.Owned(st, c));
            }
        }
    }

    /// <summary>An immutable configuration (cfx_config) every method reads. Thread-safe.</summary>
    public sealed class Config : IDisposable
    {
        private readonly ConfigHandle h;

        internal Config(ConfigHandle handle) { h = handle; }

        internal ConfigHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.Config");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { h.Dispose(); }

        /// <summary>The handle of <paramref name="config"/>, or (when it is null) an empty,
        /// non-owning handle that marshals as C NULL; dispose <paramref name="empty"/> afterwards.</summary>
        internal static ConfigHandle HandleOrNull(Config config, out ConfigHandle empty)
        {
            empty = config == null ? new ConfigHandle() : null;
            return config != null ? config.Handle : empty;
        }

        /// <summary>The settings as JSON (unset settings are null).</summary>
        public string ToJson()
        {
            var c = Handle;
            return Call.String((byte[] b, UIntPtr cap, out UIntPtr n) => Native.cfx_config_to_json(c, b, cap, out n));
        }
    }
}
