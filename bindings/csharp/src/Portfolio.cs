// A whole book of applicants from a CSV file into JSON lines (cfx_portfolio_explain), and the
// portfolio summary read back from that output (cfx_portfolio_summary_*).
using System;
using System.Runtime.InteropServices;

namespace Cfx
{
    /// <summary>What a finished portfolio run wrote.</summary>
    public struct PortfolioCounts
    {
        public long Rows, Accepted, Declined, WithRecourse, Errors;

        internal static PortfolioCounts Of(Native.PortfolioCountsNative n)
        {
            return new PortfolioCounts
            {
                Rows = (long)(ulong)n.Rows,
                Accepted = (long)(ulong)n.Accepted,
                Declined = (long)(ulong)n.Declined,
                WithRecourse = (long)(ulong)n.WithRecourse,
                Errors = (long)(ulong)n.Errors,
            };
        }
    }

    public static class Portfolio
    {
        /// <summary>
        /// Explains every applicant of the CSV file <paramref name="input"/> (a header naming the
        /// schema's features; the <paramref name="ignoreColumns"/>, e.g. the outcome label, are
        /// skipped) into the JSON-lines file <paramref name="output"/>, one line per applicant in
        /// input order, on <paramref name="threads"/> worker threads (0 = all cores), with memory
        /// flat however long the file. <paramref name="config"/> may be null.
        /// <paramref name="progress"/> (may be null) hears the rows written after each chunk, on
        /// the calling thread; returning false stops the run with a CfxException CANCELLED (the
        /// output is then untouched and <c>output + ".cfx-partial"</c> holds exactly those rows,
        /// each line whole). An output naming the input is refused (INVALID_ARGUMENT) before
        /// anything is opened, and the output is replaced only once complete. An exception thrown by the
        /// callback stops the run too and is rethrown here.
        /// </summary>
        public static PortfolioCounts Explain(Schema schema, Model model, Config config, string input, string output,
            string[] ignoreColumns, int threads, Func<long, bool> progress = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (input == null) throw new ArgumentNullException("input");
            if (output == null) throw new ArgumentNullException("output");
            if (ignoreColumns == null) ignoreColumns = new string[0];
            var t = Call.Size(threads, "threads");
            CfxLibrary.EnsureCompatible();
            Exception thrown = null;
            Native.PortfolioProgressFn fn = null;
            if (progress != null)
            {
                fn = (rows, user) =>
                {
                    try { return progress((long)(ulong)rows); }
                    catch (Exception e)
                    {
                        thrown = e; // never let a managed exception unwind through Rust
                        return false;
                    }
                };
            }
            var pins = new GCHandle[ignoreColumns.Length];
            var ptrs = new IntPtr[ignoreColumns.Length];
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                for (int i = 0; i < ignoreColumns.Length; i++)
                {
                    if (ignoreColumns[i] == null) throw new ArgumentNullException("ignoreColumns", "column " + i + " is null");
                    pins[i] = GCHandle.Alloc(Utf8.Encode(ignoreColumns[i]), GCHandleType.Pinned);
                    ptrs[i] = pins[i].AddrOfPinnedObject();
                }
                Native.PortfolioCountsNative counts;
                int st = Native.cfx_portfolio_explain(schema.Handle, model.Handle, ch, Utf8.Encode(input), Utf8.Encode(output),
                    ptrs, (UIntPtr)ptrs.Length, t, fn, IntPtr.Zero, out counts);
                GC.KeepAlive(fn); // the delegate must outlive every native call of it
                if (thrown != null)
                    throw new InvalidOperationException("the progress callback threw; the portfolio run stopped", thrown);
                Call.Check(st);
                return PortfolioCounts.Of(counts);
            }
            finally
            {
                for (int i = 0; i < pins.Length; i++) if (pins[i].IsAllocated) pins[i].Free();
                if (none != null) none.Dispose();
            }
        }
    }

    /// <summary>One group's (or everyone's) summary.</summary>
    public struct PortfolioGroup
    {
        public string Name;
        public PortfolioCounts Counts;
        /// <summary>Declined applicants with recourse over declined applicants (NaN without any declined).</summary>
        public double ShareWithRecourse;
        public double MedianCost, P90Cost;
    }

    /// <summary>The portfolio summary of a <see cref="Portfolio.Explain"/> output: share of declined
    /// applicants with recourse, recourse cost quantiles, the changes asked most often, overall and per
    /// group of a column of the applicants' file. Immutable, thread-safe.</summary>
    public sealed class PortfolioSummary : IDisposable
    {
        private readonly PortfolioSummaryHandle h;
        private PortfolioSummary(PortfolioSummaryHandle handle) { h = handle; }
        internal PortfolioSummaryHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.PortfolioSummary"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>Summarises <paramref name="output"/>; with a <paramref name="groupColumn"/> (null =
        /// none), per group of that column of <paramref name="input"/>: one group per distinct cell when
        /// <paramref name="edges"/> is null or empty, else bands &lt; e0, [e0, e1), …, ≥ ek (a special
        /// state of the feature apart).</summary>
        public static PortfolioSummary Summarize(Schema schema, string input, string output, string groupColumn = null,
            double[] edges = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (output == null) throw new ArgumentNullException("output");
            CfxLibrary.EnsureCompatible();
            var e = edges ?? new double[0];
            PortfolioSummaryHandle s;
            int st = Native.cfx_portfolio_summarize(schema.Handle, input == null ? null : Utf8.Encode(input), Utf8.Encode(output),
                groupColumn == null ? null : Utf8.Encode(groupColumn), e.Length == 0 ? null : e, (UIntPtr)e.Length, out s);
            return new PortfolioSummary(Call.Owned(st, s));
        }

        public int GroupCount
        {
            get { UIntPtr n; Call.Check(Native.cfx_portfolio_summary_n_groups(Handle, out n)); return Call.ToInt(n); }
        }

        private PortfolioGroup GroupAt(long g)
        {
            var s = Handle;
            Native.PortfolioCountsNative k;
            double share, median, p90;
            Call.Check(Native.cfx_portfolio_summary_counts(s, g, out k, out share, out median, out p90));
            string name = Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_portfolio_summary_group_name(s, g, b, c, out n));
            return new PortfolioGroup { Name = name, Counts = PortfolioCounts.Of(k), ShareWithRecourse = share, MedianCost = median, P90Cost = p90 };
        }

        /// <summary>Every applicant together.</summary>
        public PortfolioGroup Overall { get { return GroupAt(-1); } }

        /// <summary>Group <paramref name="g"/> (0-based).</summary>
        public PortfolioGroup Group(int g) { return GroupAt(Call.ToInt(Call.Size(g, "g"))); }

        /// <summary>{n, mean, min, p10, p25, median, p75, p90, max} of the recourse cost of group g (-1 = all).</summary>
        public double[] CostQuantiles(int g)
        {
            var s = Handle;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_portfolio_summary_cost_quantiles(s, g, b, c, out n), 9);
        }

        /// <summary>The summary as a plain-text table with the <paramref name="top"/> changes asked most often.</summary>
        public string Describe(int top)
        {
            var s = Handle;
            var t = Call.Size(top, "top");
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_portfolio_summary_describe(s, t, b, c, out n));
        }

        public string ToJson()
        {
            var s = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_portfolio_summary_to_json(s, b, c, out n));
        }

        /// <summary>Draws the summary as an SVG chart into the file <paramref name="path"/>.</summary>
        public void WriteSvg(string title, int top, string path)
        {
            if (title == null) throw new ArgumentNullException("title");
            if (path == null) throw new ArgumentNullException("path");
            Call.Check(Native.cfx_portfolio_summary_write_svg(Handle, Utf8.Encode(title), Call.Size(top, "top"), Utf8.Encode(path)));
        }
    }
}
