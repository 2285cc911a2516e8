// Where a schema comes from: the builder with every actionability field (against the same schema
// written as JSON), the weights a schema says it has, a dataset's schema with weights fitted on its
// rows (against weights computed by hand), and schema inference from a CSV; plus the shared-data rule.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text.RegularExpressions;
using Cfx;

public static partial class Tests
{
    /// <summary>Whether the tests run under CI (CI set to anything but empty, 0 or false).</summary>
    static bool InCi()
    {
        var ci = Environment.GetEnvironmentVariable("CI");
        return !string.IsNullOrEmpty(ci) && ci != "0" && !ci.Equals("false", StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>A file of the shared data folder (the library's rule: CFX_SHARED_DATA, else
    /// ../shared/data beside the source tree), or null with a notice when it is missing; under CI a
    /// missing file fails the test instead.</summary>
    static string SharedFile(string name)
    {
        var dir = Environment.GetEnvironmentVariable("CFX_SHARED_DATA");
        if (string.IsNullOrEmpty(dir)) dir = Path.Combine(Path.GetDirectoryName(Root.TrimEnd('/')), "shared", "data");
        var p = Path.Combine(dir, name);
        if (File.Exists(p)) return p;
        if (InCi()) throw new AssertionFailed(p + " is missing under CI (set CFX_SHARED_DATA to the shared data folder)");
        Console.WriteLine("  notice: " + p + " not found; skipping (set CFX_SHARED_DATA)");
        return null;
    }

    const string AllFieldsJson = "{\"format_version\": 1, \"features\": ["
        + "{\"name\": \"income\", \"kind\": \"contiguous\", \"lower\": 0, \"upper\": 100000, \"step\": 500,"
        + " \"special_states\": [{\"code\": -7, \"label\": \"no record\"}],"
        + " \"actionability\": {\"direction\": \"increase_only\", \"lower\": 1000, \"upper\": 90000,"
        + " \"cost_scale\": 2.5, \"forbidden_transitions\": [{\"from\": \"value\", \"to\": \"no record\"}]}},"
        + "{\"name\": \"housing\", \"kind\": \"categorical\", \"levels\": [\"rent\", \"own\", \"free\"],"
        + " \"actionability\": {\"cost_scale\": 0.5, \"forbidden_transitions\": [{\"from\": \"own\", \"to\": \"*\"}]}},"
        + "{\"name\": \"age\", \"kind\": \"contiguous\", \"lower\": 18, \"upper\": 99, \"integer\": true,"
        + " \"actionability\": {\"mutable\": false}}]}";

    public static void T_schema_builder_sets_every_actionability_field_as_json_does()
    {
        using (var want = Schema.FromJson(AllFieldsJson))
        using (var got = new SchemaBuilder()
            .AddContiguous("income", 0, 100000, false).AddSpecialState(-7, "no record").SetStep(500)
            .SetActionability(true, Direction.IncreaseOnly).SetActionableBounds(1000, 90000).SetCostScale(2.5)
            .ForbidTransition("value", "no record")
            .AddCategorical("housing", "rent", "own", "free").SetCostScale(0.5).ForbidTransition("own", "*")
            .AddContiguous("age", 18, 99, true).SetActionability(false)
            .Build())
        {
            A.Eq(want.ToJson(), got.ToJson(), "builder schema equals the JSON schema");
            A.Eq(WeightsKind.Unit, got.WeightsKind, "a built schema has unit weights");
        }
        using (var b = new SchemaBuilder().AddCategorical("housing", "rent", "own"))
        {
            A.Status(Status.InvalidArgument, () => b.SetStep(1), "step of a categorical");
            A.Status(Status.InvalidArgument, () => b.SetActionableBounds(0, 1), "bounds of a categorical");
            A.Status(Status.InvalidArgument, () => b.SetCostScale(0), "cost scale 0");
            A.Throws<ArgumentNullException>(() => b.ForbidTransition(null, "*"), "null state");
        }
        var e = A.Status(Status.NotFound,
            () => new SchemaBuilder().AddContiguous("months", 0, 10, true).ForbidTransition("value", "bankrupt").Build(),
            "unknown state");
        A.True(e.Message.Contains("months"), e.Message);
        A.Status(Status.InvalidSchema, () => new SchemaBuilder().AddContiguous("months", 0, 10, true).SetStep(3).Build(),
            "upper bound off the grid");
    }

    static double JsonNumber(string json, string key, int nth)
    {
        var m = Regex.Matches(json, "\"" + key + "\": (-?[0-9.eE+-]+)");
        A.True(m.Count > nth, key + " #" + nth + " in " + json);
        return double.Parse(m[nth].Groups[1].Value, CultureInfo.InvariantCulture);
    }

    /// <summary>income 0, 2, 4, 10 in [0, 10]: slots 0, .2, .4, 1, median .3, MAD .2, weight 5,
    /// anchor .3; housing "own" in 3 of 4 rows: each indicator weighs 1/(1.48·√(3/16)).</summary>
    public static void T_a_dataset_offers_its_schema_with_weights_fitted_on_its_rows()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx-fitted-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            var csv = Path.Combine(dir, "four.csv");
            File.WriteAllText(csv, "income,housing,outcome\n0,own,good\n2,own,bad\n4,rent,good\n10,own,good\n");
            using (var s = Schema.FromJson("{\"format_version\": 1, \"features\": ["
                + "{\"name\": \"income\", \"kind\": \"contiguous\", \"lower\": 0, \"upper\": 10},"
                + "{\"name\": \"housing\", \"kind\": \"categorical\", \"levels\": [\"rent\", \"own\"]}]}"))
            using (var d = Dataset.FromCsv(s, csv, "outcome", "good"))
            using (var own = d.GetSchema())
            using (var fitted = d.GetFittedSchema())
            {
                A.Eq(WeightsKind.Unit, own.WeightsKind, "the dataset's own schema");
                A.Eq(WeightsKind.Fitted, fitted.WeightsKind, "the fitted schema");
                var json = fitted.ToJson();
                A.Near(5.0, JsonNumber(json, "value", 0), 1e-12, "income weight");
                A.Near(0.3, JsonNumber(json, "anchor", 0), 1e-12, "income anchor");
                double w = 1 / (1.48 * Math.Sqrt(3.0 / 16.0));
                var states = Regex.Matches(json, "\"states\": \\[\\s*([^\\]]*)\\]");
                A.Eq(2, states.Count, "two features' state weights");
                foreach (var v in states[1].Groups[1].Value.Split(','))
                    A.Near(w, double.Parse(v.Trim(), CultureInfo.InvariantCulture), 1e-12, "housing indicator weight");
                using (var again = d.GetSchema()) A.Eq(WeightsKind.Unit, again.WeightsKind, "the dataset is unchanged");
            }
        }
        finally { Directory.Delete(dir, true); }
    }

    public static void T_schema_inference_from_a_csv_with_caller_given_special_codes()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx-infer-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            var csv = Path.Combine(dir, "semi.csv");
            File.WriteAllText(csv, "id;months;debt;region;status\na1;12;-7;1;ok\na2;-7;2.5;2;late\na3;24;NA;1;ok\na4;36;0.5;3;ok\n");
            var specials = new List<SpecialCode> { new SpecialCode(-7, "no record", "debt"), new SpecialCode(-1, "NA", "debt") };
            using (var d = Dataset.InferCsv(csv, "status", "ok", ';', true, new[] { "id" }, new[] { "region" }, specials))
            using (var s = d.GetSchema())
            {
                A.Eq(WeightsKind.Fitted, s.WeightsKind, "inferred schema has fitted weights");
                A.Eq("months,debt,region", string.Join(",", s.FeatureNames()), "features");
                var json = s.ToJson();
                A.True(Regex.Replace(json, @"\s+", "").Contains("\"levels\":[\"1\",\"2\",\"3\"]"), json);
                A.Eq(-7.0, JsonNumber(json, "lower", 0), "months: −7 is a value there");
                A.Eq(0.5, JsonNumber(json, "lower", 1), "debt: range of the non-special values");
                A.Eq(2.5, JsonNumber(json, "upper", 1), "debt upper");
                A.True(json.Contains("\"no record\"") && json.Contains("\"NA\""), json);
                A.SameBits(new double[] { 24, -1, 0 }, d.Row(2), "row 3");
                A.Eq(0.0, d.Label(1), "label of 'late'");
            }
            var e = A.Status(Status.DataError, () => Dataset.InferCsv(csv, "status", "ok", ';', true, new[] { "id" },
                new[] { "region" }, new[] { new SpecialCode(-7, "no record", "debt") }), "NA without a special state");
            A.True(e.Message.Contains("debt"), e.Message);
            A.Status(Status.NotFound, () => Dataset.InferCsv(csv, "status", "ok", ';', true, new[] { "ident" },
                new string[0], new SpecialCode[0]), "unknown dropped column");
            A.Throws<ArgumentException>(() => Dataset.InferCsv(csv, "status", "ok", '\u013b', true, new string[0],
                new string[0], new SpecialCode[0]), "non-ASCII delimiter");
            A.Throws<ArgumentNullException>(() => Dataset.InferCsv(csv, "status", "ok", ';', true, new string[] { null },
                new string[0], new SpecialCode[0]), "null dropped column");
        }
        finally { Directory.Delete(dir, true); }
    }

    /// <summary>The caller's advice rules come back in the inferred schema's JSON; a rule naming no
    /// feature is refused naming it.</summary>
    public static void T_schema_inference_takes_the_callers_advice_rules()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx-infer-rules-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            var csv = Path.Combine(dir, "rules.csv");
            File.WriteAllText(csv, "age,months,income,status\n30,12,100,ok\n41,30,80,late\n52,7,120,ok\n");
            var rules = "{\"actionability\": {\"age\": {\"mutable\": false}, \"income\": {\"direction\": \"increase_only\"},"
                + " \"months\": {\"mutable\": false, \"grows_with_time\": {\"per_month\": 1}}},"
                + " \"waiting\": {\"max_months\": 12, \"cost_per_month\": 0.05}}";
            var none = new string[0];
            using (var d = Dataset.InferCsv(csv, "status", "ok", ',', true, none, none, new SpecialCode[0], rules))
            using (var s = d.GetSchema())
            {
                var json = Regex.Replace(s.ToJson(), @"\s+", "");
                A.True(json.Contains("\"mutable\":false"), json);
                A.True(json.Contains("\"direction\":\"increase_only\""), json);
                A.True(json.Contains("\"grows_with_time\":{\"per_month\":1.0}"), json);
                A.True(json.Contains("\"max_months\":12"), json);
            }
            using (var d = Dataset.InferCsv(csv, "status", "ok", ',', true, none, none, new SpecialCode[0], null))
            using (var s = d.GetSchema())
                A.True(!s.ToJson().Contains("increase_only"), "no rules: every feature in any direction");
            var e = A.Status(Status.NotFound, () => Dataset.InferCsv(csv, "status", "ok", ',', true, none, none,
                new SpecialCode[0], "{\"actionability\": {\"salary\": {\"mutable\": false}}}"), "a rule naming no feature");
            A.True(e.Message.Contains("salary"), e.Message);
            A.Status(Status.FormatError, () => Dataset.InferCsv(csv, "status", "ok", ',', true, none, none,
                new SpecialCode[0], "{\"actionabilty\": {}}"), "an unknown key");
        }
        finally { Directory.Delete(dir, true); }
    }

    /// <summary>HELOC inferred with −7/−8/−9 given by the caller has the loader's features and rows.</summary>
    public static void T_heloc_inferred_with_its_special_codes_matches_the_loader()
    {
        var heloc = SharedFile("heloc.csv");
        if (heloc == null) return;
        var codes = new[] { new SpecialCode(-7, "condition not met"), new SpecialCode(-8, "no usable trades"),
            new SpecialCode(-9, "no bureau record") };
        using (var d = Dataset.InferCsv(heloc, "RiskPerformance", "Good", ',', true, new string[0], new string[0], codes))
        using (var known = Dataset.LoadHeloc(heloc))
        using (var s = d.GetSchema())
        using (var k = known.GetSchema())
        {
            A.Eq(known.RowCount, d.RowCount, "rows");
            A.Eq(k.FeatureCount, s.FeatureCount, "features");
            A.Eq(k.EncodedDim, s.EncodedDim, "encoded dimension");
            A.Eq(WeightsKind.Fitted, s.WeightsKind, "weights");
            A.SameBits(known.Row(17), d.Row(17), "row 18");
        }
    }
}
