// The advice calls of the schema (issue #16): change limits, time growth and waiting from the
// builder, and the German credit preset. The change limit's oracle is arithmetic: the model accepts
// exactly the amounts <= 4000 (score 4 - 10·amount/10000), the applicant asks 5000, so a decrease
// limit of 10 % (down to 4500) leaves no recourse and one of 2000 units puts the answer in
// [3000, 4000].
using System;
using Cfx;

public static partial class Tests
{
    static Schema LimitedAmount(ChangeLimit maxDecrease)
    {
        return new SchemaBuilder()
            .AddContiguous("amount", 0, 10000, false).SetChangeLimits(ChangeLimit.None, maxDecrease)
            .AddContiguous("age", 18, 80, true).SetActionability(false)
            .Build();
    }

    public static void T_advice_the_coherent_answer_never_exceeds_a_change_limit()
    {
        var applicant = new double[] { 5000, 30 };
        using (var m = Model.Linear(new double[] { -10, 0 }, 4))
        using (var tight = LimitedAmount(ChangeLimit.Fraction(0.1)))
        using (var loose = LimitedAmount(ChangeLimit.Units(2000)))
        {
            A.True(!m.PredictRaw(loose, applicant).Accepted, "the applicant is declined");
            A.True(tight.ToJson().Contains("\"fraction\": 0.1"), tight.ToJson());
            using (var r = Coherent.Explain(tight, m, null, applicant))
            {
                A.Eq(CoherentOutcome.Infeasible, r.Outcome, "4500 is still declined");
                A.Eq(0, r.Count, "no counterfactual");
            }
            using (var r = Coherent.Explain(loose, m, null, applicant))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "2000 down reaches 4000");
                var cf = r.Counterfactual(0);
                A.True(cf[0] >= 3000 - 1e-6 && cf[0] <= 4000 + 1e-6, "amount " + cf[0]);
                A.Eq(30.0, cf[1], "age is immutable");
                A.True(m.PredictRaw(loose, cf).Accepted, "the counterfactual is accepted");
            }
        }
    }

    public static void T_advice_time_growth_and_waiting_reach_the_schema()
    {
        using (var s = new SchemaBuilder()
            .AddContiguous("months_since_delinquency", 0, 120, true).AddSpecialState(-8, "beyond records")
            .SetTimeGrowth(1, "beyond records")
            .AddContiguous("age", 18, 99, false).SetTimeGrowth(1.0 / 12)
            .SetWaiting(0.05, 36)
            .Build())
        {
            var json = s.ToJson();
            A.True(json.Contains("\"max_months\": 36"), json);
            A.True(json.Contains("\"cost_per_month\": 0.05"), json);
            A.True(json.Contains("\"per_month\": 1"), json);
            A.True(json.Contains("\"ends_in\": \"beyond records\""), json);
            using (var back = Schema.FromJson(json)) A.Eq(s.Fingerprint(), back.Fingerprint(), "JSON round trip");
        }
        A.Status(Status.InvalidSchema,
            () => new SchemaBuilder().AddContiguous("m", 0, 10, true).SetTimeGrowth(1).Build(), "time without waiting");
        var e = A.Status(Status.InvalidSchema,
            () => new SchemaBuilder().AddContiguous("m", 0, 10, true).SetTimeGrowth(1, "gone").SetWaiting(1, 12).Build(),
            "unknown ends_in");
        A.True(e.Message.Contains("gone"), e.Message);
        A.Status(Status.InvalidSchema,
            () => new SchemaBuilder().AddContiguous("m", 0, 10, true).SetWaiting(1, 601).Build(), "too long a wait");
        A.Status(Status.InvalidSchema,
            () => new SchemaBuilder().AddContiguous("m", 0, 10, true).SetChangeLimits(ChangeLimit.Units(-1), ChangeLimit.None).Build(),
            "negative change limit");
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
        {
            A.Throws<ArgumentOutOfRangeException>(() => b.SetWaiting(1, -1), "negative months");
            A.Status(Status.InvalidArgument, () => b.SetWaiting(double.PositiveInfinity, 12), "infinite cost");
            A.Status(Status.InvalidArgument,
                () => b.SetChangeLimits(ChangeLimit.Units(double.NaN), ChangeLimit.None), "NaN limit");
        }
    }

    public static void T_advice_the_german_preset_names_its_limits_and_its_waiting()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var advice = s.WithAdvicePreset(AdvicePreset.GermanCredit, 0.1))
        {
            A.True(!s.ToJson().Contains("max_decrease"), "the plain schema has no limits");
            var json = advice.ToJson();
            A.True(json.Contains("\"fraction\": 0.5"), "credit amount at most halved: " + json);
            A.True(json.Contains("\"fraction\": 0.25"), json);
            A.True(json.Contains("\"units\": 12"), "duration ±12 months: " + json);
            A.True(json.Contains("\"max_months\": 24"), json);
            A.True(json.Contains("\"cost_per_month\": 0.1"), json);
            A.True(json.Contains("\"grows_with_time\""), "age grows with time: " + json);
            A.Eq(s.FeatureCount, advice.FeatureCount, "same features");
            A.Status(Status.NotFound, () => s.WithAdvicePreset(AdvicePreset.Heloc, 0.1), "HELOC preset on German");
            A.Status(Status.InvalidArgument, () => s.WithAdvicePreset((AdvicePreset)7, 0.1), "unknown preset");
            A.Status(Status.InvalidArgument, () => s.WithAdvicePreset(AdvicePreset.GermanCredit, double.NaN), "NaN cost");
        }
    }
}
