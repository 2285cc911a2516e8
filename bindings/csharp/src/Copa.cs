// COPA: counterfactual plans under model shift (Bui, Nguyen & Nguyen 2022), and their correction.
using System;

namespace Cfx
{
    /// <summary>L* ≤ P(every option stays valid) ≤ U* under the future model.</summary>
    public struct CopaBounds
    {
        /// <summary>The lower bound L* (NaN when its solve was not usable).</summary>
        public double Lower;
        /// <summary>The upper bound U* (NaN when its solve was not usable).</summary>
        public double Upper;
        public CopaStatus LowerStatus, UpperStatus;
    }

    /// <summary>A corrected plan (cfx_copa_correct): the options in the layout given, and L* of the
    /// plan as given and as corrected (NaN when a solve was not usable).</summary>
    public struct CopaCorrection
    {
        /// <summary>The corrected options (encoded rows without the intercept).</summary>
        public double[][] Options;
        public double LowerBefore, LowerAfter;
    }

    /// <summary>The figures of a COPA plan.</summary>
    public struct CopaMetrics
    {
        /// <summary>Mean ℓ2 distance of the options to the applicant (encoded).</summary>
        public double Proximity;
        /// <summary>det K of the options' kernel matrix.</summary>
        public double Diversity;
        /// <summary>The validity proxy min_j μ̂ᵀx̃_j/‖Σ̂^{1/2}x̃_j‖.</summary>
        public double Validity;
        /// <summary>The bounds L* and U* at the configured ρ (NaN when their solve was not usable).</summary>
        public double Lower, Upper;
    }

    /// <summary>
    /// The moments (μ̂, Σ̂) of the future model's parameters θ = (bias, w), intercept first
    /// (cfx_uncertainty). Immutable, thread-safe.
    /// </summary>
    public sealed class Uncertainty : IDisposable
    {
        private readonly UncertaintyHandle h;
        internal Uncertainty(UncertaintyHandle handle) { h = handle; }
        internal UncertaintyHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Uncertainty"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>Moments given by the caller: <paramref name="mean"/> has d ≥ 2 values (bias first),
        /// <paramref name="cov"/> is Σ̂ row-major with d·d values (symmetric positive semidefinite).</summary>
        public static Uncertainty FromMoments(double[] mean, double[] cov)
        {
            if (mean == null) throw new ArgumentNullException("mean");
            if (cov == null) throw new ArgumentNullException("cov");
            CfxLibrary.EnsureCompatible();
            UncertaintyHandle u;
            int st = Native.cfx_uncertainty_new(mean, (UIntPtr)mean.Length, cov, (UIntPtr)cov.Length, out u);
            return new Uncertainty(Call.Owned(st, u));
        }

        /// <summary>Moments estimated from <paramref name="refits"/> (≥ 2) logistic regressions, each
        /// refitted on a random half of <paramref name="train"/>; Σ̂ is 1.5 × the sample covariance.</summary>
        public static Uncertainty FromDataset(Dataset train, int refits, ulong seed)
        {
            if (train == null) throw new ArgumentNullException("train");
            var r = Call.Size(refits, "refits");
            CfxLibrary.EnsureCompatible();
            UncertaintyHandle u;
            int st = Native.cfx_uncertainty_from_dataset(train.Handle, r, seed, out u);
            return new Uncertainty(Call.Owned(st, u));
        }

        /// <summary>The dimension d of θ (1 + the encoded dimension).</summary>
        public int Dim
        {
            get { UIntPtr n; Call.Check(Native.cfx_uncertainty_dim(Handle, out n)); return Call.ToInt(n); }
        }
    }

    /// <summary>Counterfactual plans under model shift (COPA, Bui, Nguyen & Nguyen 2022).</summary>
    public static class Copa
    {
        /// <summary>A plan's options (non-empty, none null, all of one length) in one row-major array.</summary>
        static double[] RowMajor(double[][] options, out int dim)
        {
            if (options == null) throw new ArgumentNullException("options");
            if (options.Length == 0) throw new ArgumentException("a plan needs at least one option", "options");
            dim = -1;
            foreach (var o in options)
            {
                if (o == null) throw new ArgumentNullException("options", "an option is null");
                if (dim < 0) dim = o.Length;
                else if (o.Length != dim) throw new ArgumentException("every option must have the same length", "options");
            }
            var flat = new double[checked(options.Length * dim)];
            for (int j = 0; j < options.Length; j++) Array.Copy(options[j], 0, flat, j * dim, dim);
            return flat;
        }

        /// <summary>
        /// The validity bounds of a plan over every law within Gelbrich distance <paramref name="rho"/>
        /// (finite, ≥ 0) of the moments. Each option is an encoded row <b>without</b> the intercept
        /// (d − 1 values).
        /// </summary>
        public static CopaBounds Bounds(Uncertainty uncertainty, double[][] options, double rho)
        {
            int dim;
            var flat = RowMajor(options, out dim);
            return Bounds(uncertainty, flat, options.Length, dim, rho);
        }

        /// <summary>As <see cref="Bounds(Uncertainty, double[][], double)"/>, with the options row-major
        /// in one array of <paramref name="nOptions"/> × <paramref name="dim"/> values.</summary>
        public static CopaBounds Bounds(Uncertainty uncertainty, double[] options, int nOptions, int dim, double rho)
        {
            if (uncertainty == null) throw new ArgumentNullException("uncertainty");
            if (options == null) throw new ArgumentNullException("options");
            var n = Call.Size(nOptions, "nOptions");
            var d = Call.Size(dim, "dim");
            // The C side trusts n_options × dim: check it against the array.
            if ((long)nOptions * dim != options.Length)
                throw new ArgumentException(string.Format("options has {0} values, not nOptions × dim = {1} × {2}",
                    options.Length, nOptions, dim), "options");
            CopaBounds b;
            int ls, us;
            Call.Check(Native.cfx_copa_bounds(uncertainty.Handle, options, n, d, rho, out b.Lower, out b.Upper, out ls, out us));
            b.LowerStatus = (CopaStatus)ls;
            b.UpperStatus = (CopaStatus)us;
            return b;
        }

        /// <summary>
        /// Corrects a plan (Bui, Nguyen & Nguyen 2022, §3): every option is projected onto {x : μ̂ᵀx̃ ≥ 0.1}, then the
        /// ⌈J/2⌉ options with the largest dual weights of L* at radius <paramref name="rho"/> get the
        /// Mahalanobis improvement with perturbation limit <paramref name="delta"/> (≥ 0). Every
        /// coordinate may move (no schema constraints). Options as in <see cref="Bounds(Uncertainty, double[][], double)"/>.
        /// Thread-safe.
        /// </summary>
        public static CopaCorrection Correct(Uncertainty uncertainty, double[][] options, double rho, double delta)
        {
            if (uncertainty == null) throw new ArgumentNullException("uncertainty");
            int dim;
            var flat = RowMajor(options, out dim);
            // The corrected plan has exactly n_options × dim values: one call, no size query (it would solve twice).
            var fixedFlat = new double[flat.Length];
            CopaCorrection c;
            UIntPtr len;
            Call.Check(Native.cfx_copa_correct(uncertainty.Handle, flat, (UIntPtr)options.Length, (UIntPtr)dim, rho, delta,
                fixedFlat, (UIntPtr)fixedFlat.Length, out len, out c.LowerBefore, out c.LowerAfter));
            c.Options = new double[options.Length][];
            for (int j = 0; j < options.Length; j++)
            {
                c.Options[j] = new double[dim];
                Array.Copy(fixedFlat, j * dim, c.Options[j], 0, dim);
            }
            return c;
        }

        /// <summary>
        /// A COPA plan for the raw applicant row <paramref name="raw"/>. The uncertainty must have
        /// d = 1 + the schema's encoded dimension. <paramref name="config"/> may be null (5 options,
        /// weights diversity 50 / validity 2, ρ = 0, seed 0); it supplies NDiverse (the number of
        /// options), Seed, CopaWeights and CopaRadius.
        /// </summary>
        public static CopaResult Plan(Schema schema, Uncertainty uncertainty, Config config, double[] raw)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (uncertainty == null) throw new ArgumentNullException("uncertainty");
            if (raw == null) throw new ArgumentNullException("raw");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                CopaResultHandle r;
                int st = Native.cfx_copa_plan_new(schema.Handle, uncertainty.Handle, ch, raw, (UIntPtr)raw.Length, out r);
                return new CopaResult(Call.Owned(st, r));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }

        /// <summary>Plan, then every option checked with today's <paramref name="model"/> (fitted on
        /// <paramref name="schema"/>): an option the model declines is repaired by the exact engine or is
        /// "no valid advice found"; read CopaResult.OptionAdviceStatus(k) and OptionAdvice(k).</summary>
        public static CopaResult PlanChecked(Schema schema, Uncertainty uncertainty, Model model, Config config,
            double[] raw)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (uncertainty == null) throw new ArgumentNullException("uncertainty");
            if (model == null) throw new ArgumentNullException("model");
            if (raw == null) throw new ArgumentNullException("raw");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                CopaResultHandle r;
                int st = Native.cfx_copa_plan_new_checked(schema.Handle, uncertainty.Handle, model.Handle, ch, raw,
                    (UIntPtr)raw.Length, out r);
                return new CopaResult(Call.Owned(st, r));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }
    }

    /// <summary>A COPA plan with its metrics, bounds and description (cfx_copa_result). Immutable, thread-safe.</summary>
    public sealed class CopaResult : IDisposable
    {
        private readonly CopaResultHandle h;
        internal CopaResult(CopaResultHandle handle) { h = handle; }
        internal CopaResultHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.CopaResult"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>The number of options J.</summary>
        public int OptionCount
        {
            get { UIntPtr n; Call.Check(Native.cfx_copa_result_n_options(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>Option <paramref name="k"/> (0-based) as a raw row; NOT_FOUND past the end.</summary>
        public double[] Option(int k)
        {
            var r = Handle;
            var i = Call.Size(k, "k");
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_copa_result_option_raw(r, i, b, c, out n), 32);
        }

        /// <summary>What option <paramref name="k"/> is as advice, for a plan made with PlanChecked
        /// (else INVALID_ARGUMENT); NOT_FOUND past the end.</summary>
        public AdviceStatus OptionAdviceStatus(int k)
        {
            int st;
            Call.Check(Native.cfx_copa_result_option_advice_status(Handle, Call.Size(k, "k"), out st));
            return (AdviceStatus)st;
        }

        /// <summary>Option <paramref name="k"/>'s advice as a raw row (the option or its repair; empty
        /// when there is none).</summary>
        public double[] OptionAdvice(int k)
        {
            var r = Handle;
            var i = Call.Size(k, "k");
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_copa_result_option_advice_raw(r, i, b, c, out n), 32);
        }

        public CopaMetrics Metrics
        {
            get
            {
                CopaMetrics m;
                Call.Check(Native.cfx_copa_result_metrics(Handle, out m.Proximity, out m.Diversity, out m.Validity,
                    out m.Lower, out m.Upper));
                return m;
            }
        }

        /// <summary>The plan in plain words, one line per option ("option 1: …"); for a plan made with
        /// PlanChecked, the advice each option became.</summary>
        public string Describe()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_copa_result_describe(r, b, c, out n));
        }

        /// <summary>Versioned JSON (kind "copa_plan"), with the schema and uncertainty fingerprints and the seed.</summary>
        public string ToJson()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_copa_result_to_json(r, b, c, out n));
        }
    }
}
