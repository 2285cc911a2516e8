// Advice that may wait (issue #16): "wait 9 months, then lower the credit amount".
using System;

namespace Cfx
{
    public static partial class Coherent
    {
        /// <summary>The cheapest advice when waiting is an action of the schema
        /// (<see cref="Schema.WithAdvicePreset"/>, SchemaBuilder's waiting): the exact minimum over every
        /// allowed wait of the wait's cost plus the optimal coherent counterfactual of the waited row.
        /// When no wait and no move is accepted, <see cref="WaitingAdvice.Found"/> is false; a solve stopped at a
        /// limit is a result too (<see cref="WaitingAdvice.Proven"/>, <see cref="WaitingOutcome.Unproven"/>).
        /// <paramref name="config"/> may be null.</summary>
        public static WaitingAdvice ExplainWithWaiting(Schema schema, Model model, Config config, double[] row)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (row == null) throw new ArgumentNullException("row");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                WaitingAdviceHandle a;
                int st = Native.cfx_coherent_explain_with_waiting(schema.Handle, model.Handle, ch, row, (UIntPtr)row.Length, out a);
                return new WaitingAdvice(Call.Owned(st, a));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }
    }

    /// <summary>Months to wait, the wait's cost, the total cost, and the solver of the moves.</summary>
    public struct WaitingSummary
    {
        /// <summary>Months to wait (0: act now).</summary>
        public int Months;
        /// <summary>cost_per_month · months, and that plus the moves' weighted L1 cost.</summary>
        public double WaitCost, TotalCost;
        /// <summary>The solver that proved the moves' optimum; null when waiting alone is accepted.</summary>
        public ProvedBy? ProvedBy;
    }

    /// <summary>The cheapest advice for one applicant when waiting is an action (cfx_waiting_advice).
    /// Without advice (NoAdvice, Unproven) every accessor but Outcome, Found, Proven, Describe and ToJson
    /// throws CfxException (NOT_FOUND). A solve stopped at a limit is not an error: the advice then says
    /// it is not proven. Immutable, thread-safe.</summary>
    public sealed class WaitingAdvice : IDisposable
    {
        private readonly WaitingAdviceHandle h;
        internal WaitingAdvice(WaitingAdviceHandle handle) { h = handle; }
        internal WaitingAdviceHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.WaitingAdvice"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>Whether there is advice (cfx_waiting_advice_outcome).</summary>
        public WaitingOutcome Outcome
        {
            get { int o; Call.Check(Native.cfx_waiting_advice_outcome(Handle, out o)); return (WaitingOutcome)o; }
        }

        /// <summary>Whether there is advice (<see cref="Outcome"/> is Found, proven or not).</summary>
        public bool Found { get { return Outcome == WaitingOutcome.Found; } }

        /// <summary>Whether the outcome is proven (cfx_waiting_advice_proven): with Found, true when the advice
        /// is the proven optimum over every allowed wait, false when a solve stopped at a limit (the best advice
        /// found, accepted but perhaps not the cheapest); always true with NoAdvice and false with Unproven.</summary>
        public bool Proven
        {
            get { int p; Call.Check(Native.cfx_waiting_advice_proven(Handle, out p)); return p != 0; }
        }

        public WaitingSummary Summary
        {
            get
            {
                uint months;
                int by;
                var s = new WaitingSummary();
                Call.Check(Native.cfx_waiting_advice_summary(Handle, out months, out s.WaitCost, out s.TotalCost, out by));
                s.Months = checked((int)months);
                s.ProvedBy = by < 0 ? (ProvedBy?)null : (ProvedBy)by;
                return s;
            }
        }

        /// <summary>The applicant's raw row after waiting, before any move.</summary>
        public double[] WaitedRow()
        {
            var a = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_waiting_advice_waited_row(a, b, c, out n), 32);
        }

        /// <summary>The raw row to reach: the waited row, moved.</summary>
        public double[] FinalRow()
        {
            var a = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_waiting_advice_final_row(a, b, c, out n), 32);
        }

        /// <summary>In words, e.g. "wait 24 months (age_in_years: 28 → 30), then duration_in_month: 30 → 25",
        /// followed by "(not proven optimal: …)" when not proven; without advice, a sentence saying so and, for
        /// Unproven, which limit stopped a solve.</summary>
        public string Describe()
        {
            var a = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_waiting_advice_describe(a, b, c, out n));
        }

        /// <summary>Versioned JSON (kind "waiting_advice"): result null with NoAdvice, else an object with "proven"
        /// and, when not proven, "unproven" (the solve's outcome), plus the advice's fields.</summary>
        public string ToJson()
        {
            var a = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_waiting_advice_to_json(a, b, c, out n));
        }
    }
}
