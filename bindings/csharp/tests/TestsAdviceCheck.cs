// Advice the model accepts, or none (issue 25): the advice status of a robust result and of each
// option of a checked COPA plan, on bindings/testdata/advice_check_schema.json (its README gives
// the expected outcomes; tests/ffi_copa_advice.rs checks them in Rust).
using System;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    static string AdviceSchemaJson { get { return File.ReadAllText(Path.Combine(Root, "bindings/testdata/advice_check_schema.json")); } }

    static double[] Diagonal(int d, double v)
    {
        var c = new double[d * d];
        for (int i = 0; i < d; i++) c[i * d + i] = v;
        return c;
    }

    public static void T_advice_status_of_a_robust_result()
    {
        using (var s = Schema.FromJson(AdviceSchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        using (var noise = Noise.Gaussian(s, 0.01))
        using (var r = RobustResult.Generate(s, m, noise, RobustMethod.Wachter, null, Applicant))
        {
            A.Eq(AdviceStatus.Valid, r.AdviceStatus, "Wachter's row is accepted");
            A.SameBits(r.Raw(), r.Advice(), "valid advice is the method's row");
            A.True(m.PredictRaw(s, r.Advice()).Accepted, "the model accepts the advice");
            var text = r.Describe();
            A.True(text.StartsWith("income: 30000 → ") && text.Contains("(accepted, probability "), text);
            A.True(r.ToString().Contains("Valid"), r.ToString());
            A.True(r.ToJson(s, m).Contains("\"outcome\": \"valid\""), "the JSON agrees");
        }
    }

    public static void T_advice_status_of_checked_copa_options()
    {
        var today = new[] { -3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0 };
        var flipped = (double[])today.Clone();
        flipped[1] = -4.0;
        using (var s = Schema.FromJson(AdviceSchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        using (var u = Uncertainty.FromMoments(today, Diagonal(8, 0.05)))
        using (var uf = Uncertainty.FromMoments(flipped, Diagonal(8, 0.05)))
        using (var valid = Copa.PlanChecked(s, u, m, null, Applicant))
        using (var repaired = Copa.PlanChecked(s, uf, m, null, Applicant))
        using (var unchecked_ = Copa.Plan(s, u, null, Applicant))
        {
            A.Eq(5, valid.OptionCount, "five options");
            // The box binds all five options at the same limit: one row, described once.
            var lines = valid.Describe().TrimEnd('\n').Split('\n');
            A.Eq(1, lines.Length, "one line for the five coinciding options");
            A.True(lines[0].StartsWith("options 1, 2, 3, 4 and 5 (the same row): income: 30000 → 100000 (accepted"), lines[0]);
            for (int k = 0; k < 5; k++)
            {
                A.Eq(AdviceStatus.Valid, valid.OptionAdviceStatus(k), "option " + k + " valid");
                A.SameBits(valid.Option(k), valid.OptionAdvice(k), "valid advice is the option");
                A.Eq(100000.0, valid.Option(k)[0], "income to its upper bound");
            }
            lines = repaired.Describe().TrimEnd('\n').Split('\n');
            A.Eq(1, lines.Length, "one line for the five coinciding repairs");
            A.True(lines[0].Contains("repaired by the exact engine over the features the method moved"), lines[0]);
            for (int k = 0; k < 5; k++)
            {
                A.Eq(AdviceStatus.RepairedMovedFeatures, repaired.OptionAdviceStatus(k), "option " + k + " repaired");
                var a = repaired.OptionAdvice(k);
                A.SameBits(new[] { 58334.0, -7, 1, 30 }, a, "the cheapest accepted income");
                A.True(m.PredictRaw(s, a).Accepted, "accepted");
                A.True(!m.PredictRaw(s, new[] { 58333.0, -7, 1, 30 }).Accepted, "one less is declined");
                A.True(!m.PredictRaw(s, repaired.Option(k)).Accepted, "the option itself is declined");
            }
            A.True(repaired.ToJson().Contains("\"outcome\": \"repaired\""), "the JSON agrees");
            var e = A.Status(Status.InvalidArgument, () => unchecked_.OptionAdviceStatus(0), "a plan made without a model");
            A.True(e.Message.Contains("cfx_copa_plan_new_checked"), e.Message);
            A.Status(Status.NotFound, () => valid.OptionAdviceStatus(5), "option 5 of 5");
            A.Throws<ArgumentNullException>(() => Copa.PlanChecked(s, u, null, null, Applicant), "null model");
        }
    }
}
