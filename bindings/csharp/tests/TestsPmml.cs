// Tests of the PMML importer (cfx_model_from_pmml_str / _file) on the committed SAS-style
// scorecard of tests/data/pmml: every row scores jpmml-evaluator's 'Final Score'
// (scorecard_sas_scores.csv, written by benches/peers/pmml_peers.py); an undeclared cutoff and
// hostile XML are format errors.
using System;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    static string PmmlData(string name) { return Path.Combine(Root, "tests/data/pmml", name); }

    public static void T_a_pmml_scorecard_scores_every_row_as_jpmml_evaluator()
    {
        const string opts = "{\"accept\": \"at_or_above\", \"cutoff\": 560}";
        var rows = File.ReadAllLines(PmmlData("rows.csv")).Skip(1)
            .Select(l => l.Split(',').Select(v => double.Parse(v, System.Globalization.CultureInfo.InvariantCulture)).ToArray())
            .ToArray();
        var want = File.ReadAllLines(PmmlData("scorecard_sas_scores.csv")).Skip(1)
            .Select(l => double.Parse(l.Split(',')[1], System.Globalization.CultureInfo.InvariantCulture))
            .ToArray();
        A.Eq(400, rows.Length, "rows");
        using (var s = Schema.FromJson(File.ReadAllText(PmmlData("schema.json"))))
        using (var a = Model.FromPmmlFile(s, PmmlData("scorecard_sas.pmml"), opts))
        using (var b = Model.FromPmmlString(s, File.ReadAllText(PmmlData("scorecard_sas.pmml")), opts))
        {
            A.Eq(ModelKind.Scorecard, a.Kind, "kind");
            A.Eq(a.ToJson(), b.ToJson(), "from a file and from a string");
            for (int i = 0; i < rows.Length; i++)
            {
                var p = a.PredictRaw(s, rows[i]);
                A.Eq(want[i], p.Score, "score of row " + i);
                A.Eq(want[i] >= 560, p.Accepted, "decision of row " + i);
            }
            var e = A.Status(Status.FormatError, () => Model.FromPmmlFile(s, PmmlData("scorecard_sas.pmml")), "undeclared cutoff");
            A.True(e.NativeMessage.Contains("at_or_above"), "names the option: " + e.NativeMessage);
            A.Status(Status.FormatError, () => Model.FromPmmlString(s, "<!DOCTYPE x><PMML/>", opts), "DOCTYPE");
            A.Status(Status.IoError, () => Model.FromPmmlFile(s, PmmlData("none.pmml"), opts), "missing file");
        }
    }
}
