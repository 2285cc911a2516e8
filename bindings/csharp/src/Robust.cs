// Robust counterfactuals: invalidation estimates, CROCO, PROBE, Wachter.
using System;

namespace Cfx
{
    /// <summary>A noise distribution over the encoded space (cfx_noise). Immutable, thread-safe.</summary>
    public sealed class Noise : IDisposable
    {
        private readonly NoiseHandle h;
        internal Noise(NoiseHandle handle) { h = handle; }
        internal NoiseHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Noise"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>N(0, σ²I) on the value slots of the mutable contiguous features; <paramref name="sigma2"/> is the variance.</summary>
        public static Noise Gaussian(Schema schema, double sigma2)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            CfxLibrary.EnsureCompatible();
            NoiseHandle n;
            int st = Native.cfx_noise_gaussian_new(schema.Handle, sigma2, out n);
            return new Noise(Call.Owned(st, n));
        }

        /// <summary>Noise on chosen encoded columns (sorted, distinct): Gaussian scale = variance
        /// σ_j² (as <see cref="Gaussian"/>'s sigma2), Uniform scale = half-width h of U[−h, h].</summary>
        public static Noise OnColumns(NoiseModel kind, int[] columns, double[] scale)
        {
            if (columns == null) throw new ArgumentNullException("columns");
            if (scale == null) throw new ArgumentNullException("scale");
            CfxLibrary.EnsureCompatible();
            var cols = new UIntPtr[columns.Length];
            for (int i = 0; i < cols.Length; i++) cols[i] = Call.Size(columns[i], "columns");
            NoiseHandle n;
            int st = Native.cfx_noise_new((int)kind, cols, (UIntPtr)cols.Length, scale, (UIntPtr)scale.Length, out n);
            return new Noise(Call.Owned(st, n));
        }
    }

    /// <summary>Γ̃ (share of noisy copies rejected) and Θ̃ (mean of 1 − f) with standard errors.</summary>
    public struct InvalidationEstimate
    {
        public double Gamma, GammaStdErr, Theta, ThetaStdErr;
    }

    /// <summary>CROCO's bound (m + Θ̃)/(1 − t) and its confidence 1 − exp(−2Km²).</summary>
    public struct InvalidationBound
    {
        public double Theta, Bound, Confidence;
    }

    /// <summary>
    /// Random state and buffers of estimates (cfx_workspace). Not thread-safe in
    /// C: this wrapper serialises its use with a lock; use one per thread for speed.
    /// </summary>
    public sealed class Workspace : IDisposable
    {
        private readonly WorkspaceHandle h;
        internal readonly object Gate = new object();

        public Workspace(Model model, ulong seed)
        {
            if (model == null) throw new ArgumentNullException("model");
            CfxLibrary.EnsureCompatible();
            WorkspaceHandle w;
            int st = Native.cfx_workspace_new(model.Handle, seed, out w);
            h = Call.Owned(st, w);
        }

        internal WorkspaceHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Workspace"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { lock (Gate) h.Dispose(); }

        /// <summary>Restarts the generator from <paramref name="seed"/>.</summary>
        public void Reseed(ulong seed)
        {
            lock (Gate) Call.Check(Native.cfx_workspace_reseed(Handle, seed));
        }
    }

    /// <summary>Monte Carlo estimator of invalidation under a noise model (cfx_estimator). Thread-safe.</summary>
    public sealed class Estimator : IDisposable
    {
        private readonly EstimatorHandle h;

        public Estimator(Noise noise, int k, Sampling sampling = Sampling.Auto)
        {
            if (noise == null) throw new ArgumentNullException("noise");
            CfxLibrary.EnsureCompatible();
            EstimatorHandle e;
            int st = Native.cfx_estimator_new(noise.Handle, Call.Size(k, "k"), (int)sampling, out e);
            h = Call.Owned(st, e);
        }

        internal EstimatorHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Estimator"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        public InvalidationEstimate Estimate(Model model, Workspace ws, double[] x)
        {
            Check(model, ws, x);
            InvalidationEstimate r;
            lock (ws.Gate)
                Call.Check(Native.cfx_estimator_estimate(Handle, model.Handle, ws.Handle, x, (UIntPtr)x.Length,
                    out r.Gamma, out r.GammaStdErr, out r.Theta, out r.ThetaStdErr));
            return r;
        }

        public InvalidationBound Bound(Model model, Workspace ws, double[] x, double m)
        {
            Check(model, ws, x);
            InvalidationBound r;
            lock (ws.Gate)
                Call.Check(Native.cfx_estimator_bound(Handle, model.Handle, ws.Handle, x, (UIntPtr)x.Length, m,
                    out r.Theta, out r.Bound, out r.Confidence));
            return r;
        }

        /// <summary>PROBE's first-order invalidation rate (no sampling).</summary>
        public double ProbeRate(Model model, Workspace ws, double[] x)
        {
            Check(model, ws, x);
            double rate;
            lock (ws.Gate)
                Call.Check(Native.cfx_estimator_probe_rate(Handle, model.Handle, ws.Handle, x, (UIntPtr)x.Length, out rate));
            return rate;
        }

        /// <summary>The exact Γ of a logistic model under Gaussian noise (INVALID_ARGUMENT otherwise).</summary>
        public double ExactRate(Model model, double[] x)
        {
            if (model == null) throw new ArgumentNullException("model");
            if (x == null) throw new ArgumentNullException("x");
            double rate;
            Call.Check(Native.cfx_estimator_exact_rate(Handle, model.Handle, x, (UIntPtr)x.Length, out rate));
            return rate;
        }

        /// <summary>Γ̃ and Θ̃ of nPoints encoded rows (row-major) on <paramref name="threads"/> threads
        /// (0 = all cores); the same seed gives the same bits for any thread count.</summary>
        public void EstimateBatch(Model model, double[] points, int nPoints, ulong seed, int threads,
            out double[] gamma, out double[] theta)
        {
            if (model == null) throw new ArgumentNullException("model");
            if (points == null) throw new ArgumentNullException("points");
            int d = model.InputDim;
            // The C side reads n_points × input_dim values and writes n_points into each output.
            if (nPoints < 0 || (long)nPoints * d != points.Length)
                throw new ArgumentException(string.Format(
                    "points must hold nPoints × InputDim = {0} × {1} values, it has {2}", nPoints, d, points.Length));
            var g = new double[nPoints];
            var t = new double[nPoints];
            Call.Check(Native.cfx_estimator_estimate_batch(Handle, model.Handle, points, (UIntPtr)nPoints, seed,
                Call.Size(threads, "threads"), g, t));
            gamma = g;
            theta = t;
        }

        private static void Check(Model model, Workspace ws, double[] x)
        {
            if (model == null) throw new ArgumentNullException("model");
            if (ws == null) throw new ArgumentNullException("ws");
            if (x == null) throw new ArgumentNullException("x");
        }
    }

    /// <summary>The figures of a robust counterfactual.</summary>
    public struct RobustSummary
    {
        public bool Valid, TargetMet;
        public double Probability, Distance, Gamma, Theta, Bound, Confidence;
    }

    /// <summary>A robust counterfactual (cfx_robust_result). Immutable, thread-safe.</summary>
    public sealed class RobustResult : IDisposable
    {
        private readonly RobustResultHandle h;
        internal RobustResult(RobustResultHandle handle) { h = handle; }
        internal RobustResultHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.RobustResult"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>Generates a robust counterfactual for a raw applicant row. <paramref name="config"/>
        /// may be null (the paper defaults). A missed target is not an error: see TargetMet.</summary>
        public static RobustResult Generate(Schema schema, Model model, Noise noise, RobustMethod method,
            Config config, double[] raw)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (noise == null) throw new ArgumentNullException("noise");
            if (raw == null) throw new ArgumentNullException("raw");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                RobustResultHandle r;
                int st = Native.cfx_robust_generate(schema.Handle, model.Handle, noise.Handle, (int)method,
                    ch, raw, (UIntPtr)raw.Length, out r);
                return new RobustResult(Call.Owned(st, r));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }

        public RobustSummary Summary()
        {
            RobustSummary s;
            int valid, met;
            Call.Check(Native.cfx_robust_result_summary(Handle, out valid, out met, out s.Probability, out s.Distance,
                out s.Gamma, out s.Theta, out s.Bound, out s.Confidence));
            s.Valid = valid != 0;
            s.TargetMet = met != 0;
            return s;
        }

        /// <summary>The counterfactual as a raw row.</summary>
        public double[] Raw()
        {
            var r = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_robust_result_raw(r, b, c, out n), 32);
        }

        /// <summary>The counterfactual encoded.</summary>
        public double[] Encoded()
        {
            var r = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_robust_result_encoded(r, b, c, out n), 128);
        }

        /// <summary>Versioned result JSON with the schema and model fingerprints.</summary>
        public string ToJson(Schema schema, Model model)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            var r = Handle;
            var s = schema.Handle;
            var m = model.Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_robust_result_to_json(r, s, m, b, c, out n));
        }

        /// <summary>What the counterfactual is as advice: Valid (the model accepts it), repaired by the
        /// exact engine, or NoAdvice (Raw() is then the method's best effort, for diagnosis only).</summary>
        public Cfx.AdviceStatus AdviceStatus
        {
            get { int st; Call.Check(Native.cfx_robust_result_advice_status(Handle, out st)); return (Cfx.AdviceStatus)st; }
        }

        /// <summary>The advice as a raw row: the method's row or the exact engine's repair; empty when
        /// there is none.</summary>
        public double[] Advice()
        {
            var r = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_robust_result_advice_raw(r, b, c, out n), 32);
        }

        /// <summary>The advice in one line for a person and how it was obtained, or
        /// "no valid advice found (…)".</summary>
        public string Describe()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_robust_result_advice_describe(r, b, c, out n));
        }

        public override string ToString() { return "RobustResult[" + AdviceStatus + ": " + Describe() + "]"; }

        /// <summary>1 − exp(−2Km²), the confidence of CROCO's bound (NaN for m ≤ 0).</summary>
        public static double BoundConfidence(int k, double m)
        {
            CfxLibrary.EnsureCompatible();
            return Native.cfx_robust_bound_confidence(Call.Size(k, "k"), m);
        }
    }
}
