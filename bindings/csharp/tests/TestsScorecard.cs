// The bundled German points scorecard (examples/data/german_scorecard_table.csv, optbinning 1.0.0;
// cutoff and scaling from examples/data/german_scorecard.md) imported through the binding, its
// points checked against optbinning's own scores (tests/reference/german_scorecard_scores.csv),
// and the first declined held-out applicant explained by the coherent MIP.
using System;
using System.Globalization;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>Score at probability 0.5 of good: the acceptance cutoff.</summary>
    const double GermanCardCutoff = 487.1228762045055;
    /// <summary>20 points double the odds: factor = 20 / ln 2 (as written in german_scorecard.md), offset = the cutoff.</summary>
    static readonly ScoreScaling GermanCardScaling = new ScoreScaling(28.85390081777927, GermanCardCutoff);
    static string GermanCardPath { get { return Path.Combine(Root, "examples/data/german_scorecard_table.csv"); } }

    /// <summary>optbinning's Scorecard.score of a data row of german_credit.csv.</summary>
    static double OptbinningGermanScore(int dataRow)
    {
        var f = File.ReadAllLines(Path.Combine(Root, "tests/reference/german_scorecard_scores.csv"))[dataRow + 1].Split(',');
        A.Eq(dataRow, int.Parse(f[0], CultureInfo.InvariantCulture), "reference row");
        return double.Parse(f[1], CultureInfo.InvariantCulture);
    }

    public static void T_scorecard_import_scores_as_optbinning()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var card = ScorecardImport.FromPath(s, ScorecardFormat.Optbinning, GermanCardPath, GermanCardCutoff, GermanCardScaling))
            using (var m = card.Model())
            {
                A.Eq(ModelKind.Scorecard, m.Kind, "kind");
                A.Eq(s.EncodedDim, m.InputDim, "input dimension");
                var report = card.ReportJson();
                A.True(report.Contains("\"format\": \"optbinning\""), report);
                A.True(report.Contains("\"characteristics\": 20"), report);
                // The first five held-out applicants (data rows i with i mod 10 >= 7) score as optbinning scores them.
                for (int j = 0; j < 5; j++)
                {
                    double expected = OptbinningGermanScore(10 * (j / 3) + 7 + j % 3);
                    var p = m.PredictRaw(s, test.Row(j));
                    A.Near(expected, p.Score, 1e-9, "points of held-out " + j);
                    A.Eq(expected >= GermanCardCutoff, p.Accepted, "decision of held-out " + j);
                    A.Near(1.0 / (1.0 + Math.Exp(-(expected - GermanCardCutoff) / GermanCardScaling.Factor)), p.Probability, 1e-12,
                        "probability of held-out " + j);
                }
                // The same table given as text is the same model.
                using (var fromText = ScorecardImport.FromCsv(s, ScorecardFormat.Optbinning, File.ReadAllText(GermanCardPath), GermanCardCutoff, GermanCardScaling))
                using (var m2 = fromText.Model())
                    A.Eq(m.Fingerprint(), m2.Fingerprint(), "CSV text and file give the same model");
                // Without a scaling: no probability, the points and the decision stay.
                using (var unscaled = ScorecardImport.FromPath(s, ScorecardFormat.Optbinning, GermanCardPath, GermanCardCutoff))
                using (var m3 = unscaled.Model())
                {
                    var p = m3.PredictRaw(s, test.Row(2));
                    A.Near(OptbinningGermanScore(9), p.Score, 1e-9, "points without scaling");
                    A.True(double.IsNaN(p.Probability), "no probability without a scaling");
                    A.True(!p.Accepted, "declined without a scaling too");
                }
                // A model outlives its import.
                var kept = card.Model();
                card.Dispose();
                using (kept)
                    A.Near(OptbinningGermanScore(9), kept.PredictRaw(s, test.Row(2)).Score, 1e-9, "model after the import is disposed");
                A.Throws<ObjectDisposedException>(() => card.ReportJson(), "disposed import");
            }
            var bad = A.Status(Status.FormatError, () => ScorecardImport.FromCsv(s, ScorecardFormat.Optbinning,
                "Variable,Bin id,Bin,Points,Colour\nduration_in_month,0,\"(-inf, inf)\",1.0,red\n", 0.0), "unknown column");
            A.True(bad.Message.Contains("Colour"), bad.Message);
            A.Status(Status.IoError, () => ScorecardImport.FromPath(s, ScorecardFormat.Optbinning,
                Path.Combine(Root, "no-such-table.csv"), 0.0), "missing file");
        }
    }

    public static void T_scorecard_absent_characteristic_refused_unless_declared_unused()
    {
        var without = string.Join("\n", File.ReadAllLines(GermanCardPath).Where(l => !l.StartsWith("telephone,"))) + "\n";
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            var e = A.Status(Status.FormatError, () => ScorecardImport.FromCsvWithOptions(s, ScorecardFormat.Optbinning,
                without, "{\"cutoff\": 487.0}"), "absent characteristic");
            A.True(e.Message.Contains("'telephone'") && e.Message.Contains("unused_features"), e.Message);
            A.Status(Status.FormatError, () => ScorecardImport.FromCsv(s, ScorecardFormat.Optbinning, without, 487.0),
                "absent characteristic, options-less import");
            A.Status(Status.FormatError, () => ScorecardImport.FromCsvWithOptions(s, ScorecardFormat.Optbinning,
                without, "{\"cutoff\": 487.0, \"unused\": [\"telephone\"]}"), "unknown key");
            using (var imp = ScorecardImport.FromCsvWithOptions(s, ScorecardFormat.Optbinning, without,
                "{\"cutoff\": 487.0, \"scaling\": {\"factor\": 28.85390081777927, \"offset\": 487.0}, \"unused_features\": [\"telephone\"]}"))
            using (var full = ScorecardImport.FromCsv(s, ScorecardFormat.Optbinning, File.ReadAllText(GermanCardPath), 487.0))
            using (var m = imp.Model())
            using (var f = full.Model())
            {
                A.True(imp.ReportJson().Contains("\"unused_features\": [\n    \"telephone\"\n  ]"), imp.ReportJson());
                var row = d.Row(0);
                var p = m.PredictRaw(s, row);
                A.True(!double.IsNaN(p.Probability), "scaled");
                A.True(f.PredictRaw(s, row).Score != p.Score, "the telephone points are missing");
            }
        }
    }

    public static void T_scorecard_shipped_german_table_loads_with_its_documented_cutoff()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var shipped = ScorecardImport.LoadGerman(s))      // the bundled table, found like the data
            using (var m = shipped.Model())
            using (var byPath = ScorecardImport.LoadGerman(s, GermanCardPath))
            using (var m2 = byPath.Model())
            {
                A.Eq(m.Fingerprint(), m2.Fingerprint(), "bundled lookup and explicit path give the same model");
                for (int j = 0; j < 5; j++)
                {
                    double expected = OptbinningGermanScore(10 * (j / 3) + 7 + j % 3);
                    var p = m.PredictRaw(s, test.Row(j));
                    A.Near(expected, p.Score, 1e-9, "points of held-out " + j);
                    A.Eq(expected >= GermanCardCutoff, p.Accepted, "decision of held-out " + j);
                    A.Near(1.0 / (1.0 + Math.Exp(-(expected - GermanCardCutoff) / GermanCardScaling.Factor)), p.Probability, 1e-12,
                        "probability of held-out " + j);
                }
            }
            A.Status(Status.IoError, () => ScorecardImport.LoadGerman(s, Path.Combine(Root, "no-such-table.csv")), "missing file");
        }
    }

    public static void T_scorecard_declined_applicant_gets_an_accepted_coherent_counterfactual()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var card = ScorecardImport.FromPath(s, ScorecardFormat.Optbinning, GermanCardPath, GermanCardCutoff, GermanCardScaling))
            using (var m = card.Model())
            {
                // Held-out index 2 is data row 9, the first declined held-out applicant.
                var applicant = test.Row(2);
                var before = m.PredictRaw(s, applicant);
                A.Near(OptbinningGermanScore(9), before.Score, 1e-9, "applicant's points");
                A.True(!before.Accepted, "declined");
                using (var r = Coherent.Explain(s, m, null, applicant))
                {
                    A.Eq(CoherentOutcome.Optimal, r.Outcome, "outcome");
                    A.Eq(1, r.Count, "one counterfactual");
                    var cf = r.Counterfactual(0);
                    var after = m.PredictRaw(s, cf);
                    A.True(after.Accepted && after.Score >= GermanCardCutoff, "accepted: points " + after.Score);
                    var c = r.Certificate(0);
                    A.Near(after.Score, c.Score, 1e-9, "certificate points = model points");
                    A.True(c.Cost > 0 && c.Cost < 10, "cost " + c.Cost);
                    int changed = Enumerable.Range(0, cf.Length).Count(k => cf[k] != applicant[k]);
                    A.True(changed >= 1 && changed <= 2, changed + " changes (3.7 points short of the cutoff)");
                    foreach (var name in new[] { "personal_status_and_sex", "foreign_worker" })
                        A.Eq(applicant[s.IndexOf(name)], cf[s.IndexOf(name)], name + " is immutable");
                    int age = s.IndexOf("age_in_years");
                    A.True(cf[age] >= applicant[age], "age only increases");
                    A.True(r.Describe().StartsWith("declined: ") && r.Describe().Contains("optimal (cost "), r.Describe());
                }
            }
        }
    }
}
