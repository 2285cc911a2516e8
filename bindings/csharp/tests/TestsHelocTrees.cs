// The bank's own gradient-boosted models, as trained by the libraries themselves: the 100-tree
// XGBoost (depth 4) and LightGBM (15 leaves) HELOC ensembles that benches/peers/trees_train.py
// writes to target/peers (make test runs it first), with each library's raw margin of every HELOC
// row. Through the file importers of the C ABI, every row scores the library's own margin (1e-6,
// the bound of cfx's Rust parity test), and the first declined held-out applicant gets a
// proven-optimal, coherent counterfactual that the model accepts.
using System;
using System.Globalization;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>A file the peer script wrote, or null with a notice when it is missing; under CI a
    /// missing file fails the test instead.</summary>
    static string PeerFile(string name)
    {
        var p = Path.Combine(Root, "target", "peers", name);
        if (File.Exists(p)) return p;
        if (InCi()) throw new AssertionFailed(p + " is missing under CI (make test runs benches/peers/trees_train.py)");
        Console.WriteLine("  notice: " + p + " not found; skipping (run benches/peers/trees_train.py)");
        return null;
    }

    /// <summary>The library's margins, one per HELOC row, from the peer's "row,margin" CSV.</summary>
    static double[] PeerMargins(string csv)
    {
        var lines = File.ReadAllLines(csv);
        A.Eq("row,margin", lines[0], "margin CSV header");
        var out_ = new double[lines.Length - 1];
        for (int i = 1; i < lines.Length; i++)
        {
            var f = lines[i].Split(',');
            A.Eq(i - 1, int.Parse(f[0], CultureInfo.InvariantCulture), "rows in order");
            out_[i - 1] = double.Parse(f[1], NumberStyles.Float, CultureInfo.InvariantCulture);
        }
        return out_;
    }

    public static void T_heloc_xgboost_and_lightgbm_ensembles_score_each_librarys_margin_on_every_row()
    {
        var heloc = SharedFile("heloc.csv");
        var xgbPath = PeerFile("heloc_xgb.json");
        var lgbPath = PeerFile("heloc_lgbm.txt");
        if (heloc == null || xgbPath == null || lgbPath == null) return;
        var xgbMargins = PeerMargins(PeerFile("heloc_xgb_margins.csv"));
        var lgbMargins = PeerMargins(PeerFile("heloc_lgbm_margins.csv"));
        using (var d = Dataset.LoadHeloc(heloc))
        using (var s = d.GetSchema())
        using (var xgb = Model.FromXgboostFile(s, xgbPath))
        using (var lgb = Model.FromLightgbmFile(s, lgbPath))
        {
            A.Eq(10459, d.RowCount, "HELOC rows");
            A.Eq(d.RowCount, xgbMargins.Length, "XGBoost margins");
            A.Eq(d.RowCount, lgbMargins.Length, "LightGBM margins");
            A.Eq(ModelKind.Trees, xgb.Kind, "XGBoost kind");
            A.Eq(ModelKind.Trees, lgb.Kind, "LightGBM kind");
            double worstXgb = 0, worstLgb = 0;
            for (int i = 0; i < d.RowCount; i++)
            {
                var raw = d.Row(i);
                var px = xgb.PredictRaw(s, raw);
                var pl = lgb.PredictRaw(s, raw);
                worstXgb = Math.Max(worstXgb, Math.Abs(px.Score - xgbMargins[i]));
                worstLgb = Math.Max(worstLgb, Math.Abs(pl.Score - lgbMargins[i]));
                A.Eq(px.Score > 0, px.Accepted, "row " + i + " accepted");
            }
            A.True(worstXgb <= 1e-6, "worst XGBoost margin difference " + worstXgb.ToString("R", CultureInfo.InvariantCulture));
            A.True(worstLgb <= 1e-6, "worst LightGBM margin difference " + worstLgb.ToString("R", CultureInfo.InvariantCulture));
        }
    }

    public static void T_heloc_xgboost_first_declined_held_out_applicant_gets_a_proven_optimal_accepted_counterfactual()
    {
        var heloc = SharedFile("heloc.csv");
        var xgbPath = PeerFile("heloc_xgb.json");
        if (heloc == null || xgbPath == null) return;
        Dataset train, test;
        using (var d = Dataset.LoadHeloc(heloc))
        {
            d.HoldoutSplit(out train, out test);
        }
        using (train)
        using (test)
        using (var s = train.GetFittedSchema())
        using (var xgb = Model.FromXgboostFile(s, xgbPath))
        // A generous limit: a slow machine must not turn into a failed test.
        using (var b = new ConfigBuilder().TimeLimit(120))
        using (var cfg = b.Build())
        {
            int declined = Enumerable.Range(0, test.RowCount).First(i => !xgb.PredictRaw(s, test.Row(i)).Accepted);
            var raw = test.Row(declined);
            using (var r = Coherent.Explain(s, xgb, cfg, raw))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "outcome (" + r.Describe() + ")");
                var cf = r.Counterfactual(0);
                A.True(!cf.SequenceEqual(raw), "the counterfactual changes something");
                A.SameBits(cf, s.Decode(s.Encode(cf)), "coherent");
                var p = xgb.PredictRaw(s, cf);
                A.True(p.Accepted, "accepted by the model");
                var c = r.Certificate(0);
                A.Near(p.Score, c.Score, 1e-9, "the certificate's score is the model's");
                A.True(c.Cost > 0 && !double.IsInfinity(c.Cost) && !double.IsNaN(c.Cost), "cost " + c.Cost);
                // The exact tree search proves it; HiGHS, on the same program, agrees.
                A.Eq(ProvedBy.TreeSearch, r.ProvedBy, "proved by");
                using (var mb = new ConfigBuilder().TimeLimit(120).Solver(SolverChoice.Mip))
                using (var mip = mb.Build())
                using (var h = Coherent.Explain(s, xgb, mip, raw))
                {
                    A.Eq(ProvedBy.Highs, h.ProvedBy, "proved by (MIP)");
                    A.Eq(CoherentOutcome.Optimal, h.Outcome, "outcome (MIP)");
                    A.Near(c.Cost, h.Certificate(0).Cost, 1e-9 * c.Cost, "same optimum");
                }
            }
        }
    }
}
