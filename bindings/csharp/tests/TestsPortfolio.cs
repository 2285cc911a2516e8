// Tests of cfx_portfolio_explain and the portfolio summary. Oracles: the output file's own lines
// counted here, the full run's lines for a cancelled run, and the two solvers on one applicant.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Cfx;

public static partial class Tests
{
    /// <summary>The bundled German file nine times over: 9,000 applicants, in chunks of 4,096 rows at most.</summary>
    static string GermanBook(string dir)
    {
        var lines = File.ReadAllLines(GermanCsv);
        var body = lines.Skip(1).Where(l => l.Trim().Length > 0).ToList();
        A.Eq(1000, body.Count, "German rows");
        var path = Path.Combine(dir, "book.csv");
        File.WriteAllLines(path, new[] { lines[0] }.Concat(Enumerable.Repeat(body, 9).SelectMany(b => b)));
        return path;
    }

    public static void T_portfolio_streams_reports_on_the_calling_thread_cancels_and_summarises()
    {
        var dir = TestDir("cfx-portfolio-cs");
        var book = GermanBook(dir);
        var full = Path.Combine(dir, "full.jsonl");
        var cut = Path.Combine(dir, "cut.jsonl");
        var ignore = new[] { "creditability" };
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train))
            {
                var reports = new List<long>();
                int me = Thread.CurrentThread.ManagedThreadId;
                var c = Portfolio.Explain(s, m, null, book, full, ignore, 2, rows =>
                {
                    A.Eq(me, Thread.CurrentThread.ManagedThreadId, "callback on the calling thread");
                    reports.Add(rows);
                    return true;
                });
                // After each chunk: at most 4,096 rows, fewer toward the end on two threads.
                A.True(reports.Count > 3, "reports after each chunk: " + string.Join(",", reports));
                long before = 0;
                foreach (var done in reports)
                {
                    A.True(done > before && done - before <= 4096, "reports rise by a chunk: " + string.Join(",", reports));
                    before = done;
                }
                A.Eq(9000L, reports[reports.Count - 1], "the last report is every row");
                var lines = File.ReadAllLines(full);
                A.Eq(9000, lines.Length, "one line per applicant");
                long declined = lines.Count(l => l.Contains("\"decision\":\"declined\""));
                long accepted = lines.Count(l => l.Contains("\"decision\":\"accepted\""));
                long none = lines.Count(l => l.Contains("\"counterfactual\":null"));
                A.Eq(9000L, c.Rows, "rows");
                A.Eq(accepted, c.Accepted, "accepted");
                A.Eq(declined, c.Declined, "declined");
                A.Eq(declined - none, c.WithRecourse, "with recourse");
                A.Eq(0L, c.Errors, "errors");
                A.True(declined > 0, "some declined");

                // Cancel at the first report: CANCELLED, the target untouched, and exactly the full
                // run's first lines, as many as reported, kept in its partial file.
                var first = new List<long>();
                var e = A.Status(Status.Cancelled, () => Portfolio.Explain(s, m, null, book, cut, ignore, 2, rows =>
                {
                    first.Add(rows);
                    return false;
                }), "cancel");
                A.Eq(1, first.Count, "one report before the cancellation");
                int r = (int)first[0];
                A.True(r > 0 && r < 9000, "the first report");
                A.True(e.NativeMessage.Contains("after " + r + " rows"), e.NativeMessage);
                A.True(!File.Exists(cut), "a cancelled run leaves the target untouched");
                var kept = File.ReadAllLines(cut + ".cfx-partial");
                A.Eq(r, kept.Length, "lines kept");
                A.True(kept.SequenceEqual(lines.Take(r)), "kept lines = the full run's first lines");
                // Resumed on one thread: the full run's bytes and counts, the partial file gone.
                using (var resume = new ConfigBuilder().Resume(true).Build())
                {
                    var again = Portfolio.Explain(s, m, resume, book, cut, ignore, 1);
                    A.Eq(c.Rows, again.Rows, "resumed rows");
                    A.Eq(c.Declined, again.Declined, "resumed declined");
                    A.Eq(c.WithRecourse, again.WithRecourse, "resumed with recourse");
                }
                A.True(File.ReadAllBytes(full).SequenceEqual(File.ReadAllBytes(cut)), "resumed bytes = the full run's");
                A.True(!File.Exists(cut + ".cfx-partial"), "the partial file is gone");
                File.Delete(cut);
                // A callback's own exception is rethrown, not CANCELLED.
                var thrown = A.Throws<InvalidOperationException>(() => Portfolio.Explain(s, m, null, book, cut, ignore, 1,
                    rows => { throw new ArgumentException("stop"); }), "callback throws");
                A.True(thrown.InnerException is ArgumentException, "inner exception kept");
                // The label column, not ignored, is a data error naming it.
                var bad = A.Status(Status.DataError, () => Portfolio.Explain(s, m, null, book, cut, null, 1), "unknown column");
                A.True(bad.NativeMessage.Contains("'creditability'"), bad.NativeMessage);

                using (var sum = PortfolioSummary.Summarize(s, book, full, "personal_status_and_sex"))
                {
                    var all = sum.Overall;
                    A.Eq("all", all.Name, "overall name");
                    A.Eq(9000L, all.Counts.Rows, "summary rows");
                    A.Eq(declined, all.Counts.Declined, "summary declined");
                    A.Eq(declined - none, all.Counts.WithRecourse, "summary with recourse");
                    A.Near((double)(declined - none) / declined, all.ShareWithRecourse, 1e-15, "share");
                    A.True(sum.GroupCount >= 3, "groups: " + sum.GroupCount);
                    long rows = 0, dec = 0;
                    for (int g = 0; g < sum.GroupCount; g++)
                    {
                        rows += sum.Group(g).Counts.Rows;
                        dec += sum.Group(g).Counts.Declined;
                    }
                    A.Eq(9000L, rows, "groups add up (rows)");
                    A.Eq(declined, dec, "groups add up (declined)");
                    var q = sum.CostQuantiles(-1);
                    A.Eq(9, q.Length, "9 quantile values");
                    A.Eq((double)all.Counts.WithRecourse, q[0], "n");
                    A.Eq(all.MedianCost, q[5], "median");
                    A.True(q[2] <= q[5] && q[5] <= q[8], "min <= median <= max");
                    A.True(sum.Describe(5).Contains("by personal_status_and_sex:"), "table");
                    A.True(sum.ToJson().Contains("\"group_column\": \"personal_status_and_sex\""), "JSON");
                    var svg = Path.Combine(dir, "chart.svg");
                    sum.WriteSvg("German credit", 5, svg);
                    A.True(File.ReadAllText(svg).StartsWith("<svg"), "SVG written");
                    A.Status(Status.NotFound, () => sum.Group(sum.GroupCount), "group out of range");
                }
                using (var sum = PortfolioSummary.Summarize(s, book, full, "age_in_years", new double[] { 25, 35, 50 }))
                {
                    A.Eq(4, sum.GroupCount, "4 age bands");
                    A.Eq("< 25", sum.Group(0).Name, "first band");
                    A.Eq("≥ 50", sum.Group(3).Name, "last band");
                }
                A.Status(Status.InvalidArgument, () => PortfolioSummary.Summarize(s, book, full, "age_in_years", new double[] { 50, 25 }),
                    "decreasing edges");

                // The solver choice and the solver named in the result.
                double[] row = null;
                for (int i = 0; row == null; i++)
                    if (!m.PredictRaw(s, test.Row(i)).Accepted) row = test.Row(i);
                using (var mip = new ConfigBuilder().Solver(SolverChoice.Mip).Build())
                using (var a = Coherent.Explain(s, m, null, row))
                using (var b = Coherent.Explain(s, m, mip, row))
                {
                    A.Eq(ProvedBy.Separable, a.ProvedBy, "default: separable");
                    A.Eq(ProvedBy.Highs, b.ProvedBy, "MIP: HiGHS");
                    double x = a.Certificate(0).Cost, y = b.Certificate(0).Cost;
                    A.Near(x, y, 1e-9 * Math.Max(Math.Abs(x), Math.Abs(y)), "same optimum");
                }
                using (var cb = new ConfigBuilder())
                    A.Status(Status.InvalidArgument, () => cb.Solver((SolverChoice)7), "solver 7");
            }
        }
        Directory.Delete(dir, true);
    }
}
