// Tests of the tree-ensemble importers (cfx_model_from_xgboost_*, cfx_model_from_lightgbm_*) on
// the hand-written German model of bindings/testdata (three trees over duration, credit amount
// and "no checking account"; see its README): every German row scores the margin written out by
// hand below, and declined applicants get the cheaper of the two single changes that can flip the
// model, priced with the MAD weights computed here from the data.
using System;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    static string TreesXgboostPath { get { return Path.Combine(Root, "bindings/testdata/german_trees_xgboost.json"); } }
    static string TreesLightgbmPath { get { return Path.Combine(Root, "bindings/testdata/german_trees_lightgbm.txt"); } }

    // The LightGBM file names the one-hot column "checking_none": mapped to its level.
    const string TreesLightgbmOptions = "{\"columns\": {\"checking_none\": {\"feature\": "
        + "\"status_of_existing_checking_account\", \"level\": \"no checking account\"}}}";

    /// <summary>The model's margin, from its three trees as written in bindings/testdata/README.md.</summary>
    static double TreesHandMargin(double duration, double amount, bool noCheckingAccount)
    {
        double t0 = duration < 24 ? 0.5 : -0.5;
        double t1 = amount < 4000 ? (duration < 12 ? 0.5 : 0.375) : -0.375;
        double t2 = noCheckingAccount ? 0.25 : -0.25;
        return t0 + t1 + t2;
    }

    /// <summary>Whether each German applicant has no checking account, from the CSV's first column.</summary>
    static bool[] GermanNoCheckingAccount()
    {
        var lines = File.ReadAllLines(GermanCsv);
        A.True(lines[0].StartsWith("status_of_existing_checking_account,"), "CSV header: " + lines[0]);
        return lines.Skip(1).Select(l => l.StartsWith("no checking account,")).ToArray();
    }

    static double Median(double[] v)
    {
        var s = (double[])v.Clone();
        Array.Sort(s);
        int n = s.Length;
        return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    }

    /// <summary>Median absolute deviation from the median.</summary>
    static double Mad(double[] v)
    {
        double m = Median(v);
        return Median(v.Select(x => Math.Abs(x - m)).ToArray());
    }

    public static void T_tree_models_from_both_formats_score_the_hand_margins_and_explain_declined_applicants()
    {
        using (var german = Dataset.LoadGerman(GermanCsv))
        using (var s = german.GetSchema())
        using (var xgbText = Model.FromXgboostJson(s, File.ReadAllText(TreesXgboostPath)))
        using (var xgb = Model.FromXgboostFile(s, TreesXgboostPath, null))
        using (var lgbText = Model.FromLightgbmText(s, File.ReadAllText(TreesLightgbmPath), TreesLightgbmOptions))
        using (var lgb = Model.FromLightgbmFile(s, TreesLightgbmPath, TreesLightgbmOptions))
        {
            var models = new[] { xgbText, xgb, lgbText, lgb };
            foreach (var m in models)
            {
                A.Eq(ModelKind.Trees, m.Kind, "kind");
                A.Eq(s.EncodedDim, m.InputDim, "input dimension");
                A.Eq(0.5, m.Threshold, "default threshold");
            }
            A.Eq(xgbText.ToJson(), xgb.ToJson(), "XGBoost from a string and from a file");
            A.Eq(lgbText.ToJson(), lgb.ToJson(), "LightGBM from a string and from a file");

            int dur = s.IndexOf("duration_in_month"), amt = s.IndexOf("credit_amount");
            var none = GermanNoCheckingAccount();
            A.Eq(german.RowCount, none.Length, "CSV rows");
            var rows = Enumerable.Range(0, german.RowCount).Select(german.Row).ToArray();
            int declined = 0;
            for (int i = 0; i < rows.Length; i++)
            {
                double margin = TreesHandMargin(rows[i][dur], rows[i][amt], none[i]);
                foreach (var m in models)
                {
                    var p = m.PredictRaw(s, rows[i]);
                    A.Eq(margin, p.Score, "margin of row " + i);
                    A.Near(1.0 / (1.0 + Math.Exp(-margin)), p.Probability, 1e-15, "probability of row " + i);
                    A.Eq(margin > 0, p.Accepted, "decision of row " + i);
                }
                if (margin <= 0) declined++;
            }
            A.Eq(362, declined, "declined German applicants (bindings/testdata/README.md)");

            double madDuration = Mad(rows.Select(r => r[dur]).ToArray());
            double madAmount = Mad(rows.Select(r => r[amt]).ToArray());
            A.Eq(6.0, madDuration, "MAD of the duration");
            A.Eq(1097.5, madAmount, "MAD of the credit amount");
            // Rows 5 and 36: 24+ months, 4000+ DM, no checking account: margin -0.5 - 0.375 + 0.25
            // = -0.625. Duration < 24 (+1, to 0.375) or amount < 4000 (+0.75, to 0.125) alone accepts
            // them; the checking account is already at its best level. Row 5 (36 months, 9055 DM) shortens the loan, row 36
            // (48 months, 6110 DM) borrows less.
            foreach (int i in new[] { 5, 36 })
            {
                var raw = rows[i];
                A.True(none[i] && raw[dur] >= 24 && raw[amt] >= 4000, "row " + i + " is of the described kind");
                A.True(!xgb.PredictRaw(s, raw).Accepted, "row " + i + " is declined");
                double byDuration = (raw[dur] - 23) / madDuration, byAmount = (raw[amt] - 3999) / madAmount;
                A.True(Math.Abs(byDuration - byAmount) > 0.1, "a clear winner");
                var expected = (double[])raw.Clone();
                if (byDuration < byAmount) expected[dur] = 23; else expected[amt] = 3999;
                using (var r = Coherent.Explain(s, xgb, null, raw))
                using (var l = Coherent.Explain(s, lgb, null, raw))
                {
                    A.Eq(CoherentOutcome.Optimal, r.Outcome, "outcome");
                    A.SameBits(expected, r.Counterfactual(0), "counterfactual of row " + i);
                    var c = r.Certificate(0);
                    A.Near(Math.Min(byDuration, byAmount), c.Cost, 1e-9, "cost of row " + i);
                    var p = xgb.PredictRaw(s, r.Counterfactual(0));
                    A.True(p.Accepted, "the counterfactual is accepted");
                    A.Near(p.Score, c.Score, 1e-12, "certificate score");
                    A.Near(p.Probability, c.Probability, 1e-12, "certificate probability");
                    A.Eq(byDuration < byAmount ? 0.375 : 0.125, p.Score, "margin of the counterfactual");
                    A.SameBits(r.Counterfactual(0), l.Counterfactual(0), "the LightGBM copy gives the same answer");
                    A.Near(c.Cost, l.Certificate(0).Cost, 1e-9, "same cost under LightGBM");
                    A.True(r.Describe().Contains(byDuration < byAmount ? "duration_in_month" : "credit_amount"), r.Describe());
                }
            }

            using (var strict = Model.FromXgboostFile(s, TreesXgboostPath, "{\"threshold\": 0.6}"))
                A.Eq(0.6, strict.Threshold, "threshold from the options");
        }
    }

    public static void T_tree_models_declare_the_favourable_class_and_check_it_on_the_German_labels()
    {
        using (var german = Dataset.LoadGerman(GermanCsv))
        using (var s = german.GetSchema())
        {
            int dur = s.IndexOf("duration_in_month"), amt = s.IndexOf("credit_amount");
            var none = GermanNoCheckingAccount();
            var margins = Enumerable.Range(0, german.RowCount)
                .Select(i => TreesHandMargin(german.Row(i)[dur], german.Row(i)[amt], none[i])).ToArray();
            // Oracle: every (good, bad) pair of the hand margins, ties one half.
            double wins = 0, pairs = 0;
            for (int i = 0; i < margins.Length; i++)
            {
                if (german.Label(i) != 1.0) continue;
                for (int j = 0; j < margins.Length; j++)
                {
                    if (german.Label(j) == 1.0) continue;
                    wins += margins[i] > margins[j] ? 1.0 : (margins[i] == margins[j] ? 0.5 : 0.0);
                    pairs++;
                }
            }
            A.True(wins / pairs > 0.5, "the hand model ranks good applicants first");
            using (var m = Model.FromXgboostFile(s, TreesXgboostPath, "{\"favourable_class\": 1}"))
            {
                A.Near(wins / pairs, m.CheckFavourable(german), 1e-12, "AUC of the declared model");
                A.True(m.ToJson().Contains("favourable class 1 (declared)"), m.ToJson());
            }
            using (var m = Model.FromXgboostFile(s, TreesXgboostPath, "{\"favourable_class\": 0}"))
            {
                A.Eq(-margins[0], m.PredictRaw(s, german.Row(0)).Score, "negated margin");
                var e = A.Throws<CfxException>(() => m.CheckFavourable(german), "a model ranked backwards");
                A.True(e.Message.Contains("favourable_class"), e.Message);
            }
        }
    }

    public static void T_tree_importers_refuse_bad_models_options_and_paths_with_the_reason()
    {
        using (var german = Dataset.LoadGerman(GermanCsv))
        using (var s = german.GetSchema())
        {
            var lgbText = File.ReadAllText(TreesLightgbmPath);
            var e = A.Status(Status.FormatError, () => Model.FromXgboostJson(s, lgbText), "LightGBM text as XGBoost JSON");
            A.True(e.NativeMessage.Contains("XGBoost"), e.NativeMessage);
            e = A.Status(Status.FormatError, () => Model.FromLightgbmText(s, lgbText), "unmapped column");
            A.True(e.NativeMessage.Contains("checking_none"), "names the unmapped column: " + e.NativeMessage);
            e = A.Status(Status.FormatError, () => Model.FromLightgbmText(s, lgbText, "{\"colour\": \"blue\"}"), "unknown option");
            A.True(e.NativeMessage.Contains("colour"), "names the unknown key: " + e.NativeMessage);
            A.Status(Status.IoError, () => Model.FromXgboostFile(s, Path.Combine(Root, "no/such/model.json")), "missing XGBoost file");
            A.Status(Status.IoError, () => Model.FromLightgbmFile(s, Path.Combine(Root, "no/such/model.txt")), "missing LightGBM file");
            A.Throws<ArgumentNullException>(() => Model.FromXgboostJson(s, null), "null JSON");
        }
    }
}
