// Coherent counterfactuals: the MIP of Russell (2019).
using System;

namespace Cfx
{
    /// <summary>Constraint groups that block recourse in an infeasible outcome.</summary>
    [Flags]
    public enum BlockingGroups : uint
    {
        /// <summary>With an infeasible outcome: no recourse even with every group relaxed.</summary>
        None = 0,
        Immutables = 1,
        Directions = 2,
        Bounds = 4,
        ForbiddenTransitions = 8,
    }

    /// <summary>The certificate of one counterfactual.</summary>
    public struct CoherentCertificate
    {
        /// <summary>Weighted L1 cost (Russell 2019, eq. 16).</summary>
        public double Cost;
        public double Score, Probability;
        /// <summary>HiGHS objective value and relative MIP gap.</summary>
        public double Objective, MipGap;
        /// <summary>Wall-clock solve time (not in the JSON export).</summary>
        public double SolveSeconds;
    }

    /// <summary>Optimal coherent counterfactuals of a logistic model (Russell 2019 mixed-polytope MIP).</summary>
    public static partial class Coherent
    {
        /// <summary>The cheapest change that gets a declined applicant accepted, or a proof that
        /// none exists (see <see cref="CoherentResult.Outcome"/>). <paramref name="config"/> may be null.</summary>
        public static CoherentResult Explain(Schema schema, Model model, Config config, double[] row)
        {
            return Run(false, schema, model, config, row);
        }

        /// <summary>The optimal counterfactual followed by up to n_diverse − 1 diverse alternatives.</summary>
        public static CoherentResult ExplainDiverse(Schema schema, Model model, Config config, double[] row)
        {
            return Run(true, schema, model, config, row);
        }

        private static CoherentResult Run(bool diverse, Schema schema, Model model, Config config, double[] row)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (row == null) throw new ArgumentNullException("row");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                CoherentResultHandle r;
                int st = diverse
                    ? Native.cfx_coherent_explain_diverse(schema.Handle, model.Handle, ch, row, (UIntPtr)row.Length, out r)
                    : Native.cfx_coherent_explain(schema.Handle, model.Handle, ch, row, (UIntPtr)row.Length, out r);
                return new CoherentResult(Call.Owned(st, r));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }
    }

    /// <summary>The explanation of one applicant (cfx_coherent_result). Immutable, thread-safe.</summary>
    public sealed class CoherentResult : IDisposable
    {
        private readonly CoherentResultHandle h;
        internal CoherentResult(CoherentResultHandle handle) { h = handle; }
        internal CoherentResultHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.CoherentResult"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        public CoherentOutcome Outcome
        {
            get { int o; uint m; Call.Check(Native.cfx_coherent_result_outcome(Handle, out o, out m)); return (CoherentOutcome)o; }
        }

        /// <summary>The groups blocking recourse when infeasible (None otherwise).</summary>
        public BlockingGroups Blocking
        {
            get { int o; uint m; Call.Check(Native.cfx_coherent_result_outcome(Handle, out o, out m)); return (BlockingGroups)m; }
        }

        /// <summary>The number of counterfactuals (0 when there is none).</summary>
        public int Count
        {
            get { UIntPtr n; Call.Check(Native.cfx_coherent_result_count(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>The solver that proved the result, optimum or infeasibility.</summary>
        public ProvedBy ProvedBy
        {
            get { int v; Call.Check(Native.cfx_coherent_result_proved_by(Handle, out v)); return (ProvedBy)v; }
        }

        /// <summary>The raw row of counterfactual <paramref name="k"/> (0 = the optimal one).</summary>
        public double[] Counterfactual(int k)
        {
            var r = Handle;
            var i = Call.Size(k, "k");
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_coherent_result_counterfactual(r, i, b, c, out n), 32);
        }

        public CoherentCertificate Certificate(int k)
        {
            CoherentCertificate c;
            Call.Check(Native.cfx_coherent_result_certificate(Handle, Call.Size(k, "k"), out c.Cost, out c.Score,
                out c.Probability, out c.Objective, out c.MipGap, out c.SolveSeconds));
            return c;
        }

        /// <summary>The exact invalidation rate of counterfactual <paramref name="k"/> under the robust-advice
        /// noise (ConfigBuilder.RobustAdvice); NaN when computed without robust advice.</summary>
        public double InvalidationRate(int k)
        {
            double g;
            Call.Check(Native.cfx_coherent_result_invalidation_rate(Handle, Call.Size(k, "k"), out g));
            return g;
        }

        /// <summary>The explanation in plain words, one line per counterfactual.</summary>
        public string Describe()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_coherent_result_describe(r, b, c, out n));
        }

        /// <summary>Versioned JSON (kind "coherent"); the bytes depend only on the inputs.</summary>
        public string ToJson()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_coherent_result_to_json(r, b, c, out n));
        }
    }
}
