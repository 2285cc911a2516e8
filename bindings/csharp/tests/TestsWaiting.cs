// Waiting advice through P/Invoke (issue #16); its numbers are also in the shared scenario.
using System;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>German credit under the preset at 0.001 per month: the first declined applicant who waits
    /// (age moves by the months waited, employment by its bands, nothing else by the wait), the description says so, the final
    /// row is accepted; an accepted applicant is refused.</summary>
    public static void T_waiting_advice_waits_and_ages_only_by_time()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var advised = s.WithAdvicePreset(AdvicePreset.GermanCredit, 0.001))
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train, 1.0))
            {
                int accepted = Enumerable.Range(0, test.RowCount).First(i => m.PredictRaw(s, test.Row(i)).Accepted);
                // The first declined applicant for whom waiting pays (the preset keeps the instalment
                // rate fixed, so for the very first one acting now is cheapest).
                int declined = Enumerable.Range(0, test.RowCount)
                    .Where(i => !m.PredictRaw(s, test.Row(i)).Accepted)
                    .First(i =>
                    {
                        using (var w0 = Coherent.ExplainWithWaiting(advised, m, null, test.Row(i)))
                            return w0.Found && w0.Summary.Months > 0;
                    });
                var raw = test.Row(declined);
                using (var a = Coherent.ExplainWithWaiting(advised, m, null, raw))
                {
                    A.True(a.Found, "advice found");
                    var w = a.Summary;
                    A.True(w.Months > 0, "waits: " + w.Months);
                    A.Eq(0.001 * w.Months, w.WaitCost, "wait cost = price · months");
                    A.True(w.TotalCost >= w.WaitCost, "total at least the wait");
                    int age = Array.IndexOf(s.FeatureNames(), "age_in_years");
                    var waited = a.WaitedRow();
                    A.Eq(raw[age] + Math.Floor(w.Months / 12.0), waited[age], "age after waiting");
                    // Employment moves up a band only once its months pass the band's width (12
                    // months at least, the preset's narrowest band); nothing else moves by waiting.
                    int employment = Array.IndexOf(s.FeatureNames(), "present_employment_since");
                    if (w.Months < 12) A.Eq(raw[employment], waited[employment], "no band passed yet");
                    for (int j = 0; j < raw.Length; j++)
                        if (j != age && j != employment)
                            A.Eq(raw[j], waited[j], "waiting moves only age and employment, feature " + j);
                    A.True(m.PredictRaw(s, a.FinalRow()).Accepted, "the final row is accepted");
                    A.True(a.Describe().StartsWith("wait " + w.Months + " months"), a.Describe());
                    A.True(a.ToJson().Contains("\"kind\": \"waiting_advice\""), "json kind");
                }
                var e = A.Throws<CfxException>(() => Coherent.ExplainWithWaiting(advised, m, null, test.Row(accepted)),
                    "an accepted applicant");
                A.Eq("CFX_STATUS_INVALID_ARGUMENT", e.StatusName, "status of an accepted applicant");
            }
        }
    }
}

public static partial class Tests
{
    /// <summary>Income 0..100 in whole units and months 0..10 growing one a month, waiting at 0.001 a month;
    /// the model 4·slot(income) + w·slot(months) − 3 declines income 20 at month 0. No month's income need is
    /// a whole number at the separable solver's root, so a node limit of 1 stops every month's solve: with
    /// w = 1 (waiting alone never accepted) the outcome is Unproven, with w = 3 (accepted from month 8) the
    /// advice "wait 8 months" is Found but not proven. Without the limit both are proven.</summary>
    public static void T_waiting_advice_at_a_node_limit_is_unproven()
    {
        var row = new double[] { 20, 0 };
        using (var s = new SchemaBuilder().AddContiguous("income", 0, 100, true).AddContiguous("months", 0, 10, true)
                   .SetTimeGrowth(1).SetWaiting(0.001, 10).Build())
        using (var limited = new ConfigBuilder().Solver(SolverChoice.Separable).NodeLimit(1).Build())
        using (var full = new ConfigBuilder().Solver(SolverChoice.Separable).Build())
        using (var never = Model.Linear(new double[] { 4, 1 }, -3))
        using (var at8 = Model.Linear(new double[] { 4, 3 }, -3))
        {
            using (var a = Coherent.ExplainWithWaiting(s, never, limited, row))
            {
                A.Eq(WaitingOutcome.Unproven, a.Outcome, "every month stopped at the node limit");
                A.True(!a.Found && !a.Proven, "no advice, not proven");
                A.True(a.Describe().StartsWith("no advice found, and none proven impossible"), a.Describe());
                A.True(a.ToJson().Contains("\"raw_status\": -3"), a.ToJson());
                var e = A.Throws<CfxException>(() => { var x = a.Summary; }, "summary without advice");
                A.Eq("CFX_STATUS_NOT_FOUND", e.StatusName, "status");
            }
            using (var a = Coherent.ExplainWithWaiting(s, never, full, row))
            {
                A.Eq(WaitingOutcome.Found, a.Outcome, "without the limit");
                A.True(a.Proven, "proven without the limit");
                A.Eq(10, a.Summary.Months, "the full wait");
            }
            using (var a = Coherent.ExplainWithWaiting(s, at8, limited, row))
            {
                A.Eq(WaitingOutcome.Found, a.Outcome, "waiting alone is found");
                A.True(!a.Proven, "not proven at the node limit");
                A.Eq(8, a.Summary.Months, "wait 8 months");
                A.True(a.Describe().EndsWith("(not proven optimal: the separable solver's node limit stopped a solve)"),
                    a.Describe());
                A.True(a.ToJson().Contains("\"proven\": false"), a.ToJson());
            }
            using (var a = Coherent.ExplainWithWaiting(s, at8, full, row))
            {
                A.True(a.Proven, "proven without the limit");
                A.Eq(8, a.Summary.Months, "the optimum waits 8 months too");
            }
        }
        using (var b = new ConfigBuilder())
        {
            var e = A.Throws<CfxException>(() => b.NodeLimit(0), "a node limit of 0");
            A.Eq("CFX_STATUS_INVALID_ARGUMENT", e.StatusName, "status");
        }
    }
}

public static partial class Tests
{
    /// <summary>Levels "high", "low", "unknown" (that index order), ordered low &lt; high, increase only;
    /// the model accepts "low" alone. By the order "high" → "low" is a move down (infeasible, though by
    /// index an increase) and "unknown" → "low" is free (outside the order, though by index a decrease).</summary>
    public static void T_a_level_order_decides_which_way_is_up()
    {
        using (var s = new SchemaBuilder().AddCategorical("savings", "high", "low", "unknown")
                   .SetLevelOrder("low", "high").SetActionability(true, Direction.IncreaseOnly).Build())
        using (var m = Model.Linear(new double[] { 0, 5, 0 }, -3))
        {
            A.True(s.ToJson().Contains("\"level_order\""), s.ToJson());
            using (var r = Coherent.Explain(s, m, null, new double[] { 0 }))
                A.Eq(CoherentOutcome.Infeasible, r.Outcome, "high → low is down");
            using (var r = Coherent.Explain(s, m, null, new double[] { 2 }))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "unknown → low is outside the order");
                A.Eq(1.0, r.Counterfactual(0)[0], "to low");
            }
        }
        var e = A.Throws<CfxException>(() => new SchemaBuilder().AddCategorical("savings", "high", "low")
            .SetLevelOrder("low", "medium").Build(), "a level that is not one");
        A.Eq("CFX_STATUS_INVALID_SCHEMA", e.StatusName, "status");
        A.True(e.Message.Contains("medium") && e.Message.Contains("savings"), e.Message);
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
        {
            var c = A.Throws<CfxException>(() => b.SetLevelOrder("a"), "an order on a contiguous feature");
            A.Eq("CFX_STATUS_INVALID_ARGUMENT", c.StatusName, "status");
        }
    }
}
