// Tests of the CatBoost and EBM importers (cfx_model_from_catboost_json_str / _file,
// cfx_model_from_ebm_json_str / _file) on the committed models of tests/data: the first 150 rows
// (the data's own) score minus the producer's margin (CatBoost RawFormulaVal, interpret's
// decision_function, written by benches/peers/catboost_ebm_peers.py; the models predict default,
// read with favourable_class 0); a CTR model and a bad EBM are format errors.
using System;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    const string CbEbmOpts = "{\"favourable_class\": 0, \"special_as_missing\": [\"debt\"], \"unseen_levels\": {\"home\": [\"council\"]}}";

    static string CbEbmData(string format, string name) { return Path.Combine(Root, "tests/data", format, name); }

    static void CbEbmRows(Schema s, Model m, string format, string name)
    {
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        var rows = File.ReadAllLines(CbEbmData(format, name + "_rows.csv")).Skip(1).Take(150)
            .Select(l => l.Split(',').Select(v => double.Parse(v, inv)).ToArray()).ToArray();
        var want = File.ReadAllLines(CbEbmData(format, name + "_margins.csv")).Skip(1).Take(150)
            .Select(l => -double.Parse(l.Split(',')[1], inv)).ToArray();
        for (int i = 0; i < rows.Length; i++)
        {
            double got = m.PredictRaw(s, rows[i]).Score;
            A.True(Math.Abs(got - want[i]) <= 1e-9 * Math.Max(1.0, Math.Abs(want[i])), name + " row " + i + ": " + got + " vs " + want[i]);
        }
    }

    public static void T_catboost_and_ebm_models_score_as_their_producers()
    {
        using (var s = Schema.FromJson(File.ReadAllText(CbEbmData("catboost", "schema.json"))))
        using (var a = Model.FromCatboostFile(s, CbEbmData("catboost", "cb_onehot.json"), CbEbmOpts))
        using (var b = Model.FromCatboostJson(s, File.ReadAllText(CbEbmData("catboost", "cb_onehot.json")), CbEbmOpts))
        using (var c = Model.FromEbmFile(s, CbEbmData("ebm", "ebm_cat.json"), CbEbmOpts))
        using (var d = Model.FromEbmJson(s, File.ReadAllText(CbEbmData("ebm", "ebm_cat.json")), CbEbmOpts))
        {
            A.Eq(a.ToJson(), b.ToJson(), "CatBoost from a file and from a string");
            A.Eq(c.ToJson(), d.ToJson(), "EBM from a file and from a string");
            CbEbmRows(s, a, "catboost", "cb_onehot");
            CbEbmRows(s, c, "ebm", "ebm_cat");
            var e = A.Status(Status.FormatError, () => Model.FromCatboostFile(s, CbEbmData("catboost", "cb_ctr.json"), CbEbmOpts), "CTR");
            A.True(e.NativeMessage.Contains("one_hot_max_size"), "says what to do: " + e.NativeMessage);
            A.Status(Status.FormatError, () => Model.FromEbmJson(s, "{\"version\": \"1.0\"}", CbEbmOpts), "no ebm");
            A.Status(Status.IoError, () => Model.FromEbmFile(s, CbEbmData("ebm", "none.json"), CbEbmOpts), "missing file");
        }
    }
}
