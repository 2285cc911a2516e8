// The builder's last advice setters (issue 25), each shown to take effect on a model whose answer is
// known by hand, and each refusing a bad value.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.RegularExpressions;
using Cfx;

public static partial class Tests
{
    // a, b in [0, 6]; the model accepts a/6 + b/6 >= 1.6 (encoded slots), so (3, 3) needs both to
    // move: one alone reaches 1.5.
    static Schema CappedPair(int cap)
    {
        var b = new SchemaBuilder().AddContiguous("a", 0, 6, false).AddContiguous("b", 0, 6, false);
        return (cap > 0 ? b.SetMaxFeaturesChanged(cap) : b).Build();
    }

    public static void T_builder_a_cap_of_one_leaves_no_single_change_that_flips_the_decision()
    {
        var applicant = new double[] { 3, 3 };
        using (var m = Model.Linear(new double[] { 1, 1 }, -1.6))
        using (var free = CappedPair(0))
        using (var one = CappedPair(1))
        using (var two = CappedPair(2))
        {
            A.True(one.ToJson().Contains("\"max_features_changed\": 1"), one.ToJson());
            A.True(!free.ToJson().Contains("max_features_changed"), free.ToJson());
            using (var r = Coherent.Explain(free, m, null, applicant))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "uncapped");
                var cf = r.Counterfactual(0);
                A.True(cf[0] != 3 && cf[1] != 3, "both move: " + cf[0] + ", " + cf[1]);
            }
            using (var r = Coherent.Explain(one, m, null, applicant))
                A.Eq(CoherentOutcome.Infeasible, r.Outcome, "one slot at 1 and one at 0.5 is still declined");
            using (var r = Coherent.Explain(two, m, null, applicant))
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "a cap of 2");
        }
        using (var b = new SchemaBuilder().AddContiguous("a", 0, 6, false))
        {
            var e = A.Status(Status.InvalidArgument, () => b.SetMaxFeaturesChanged(0), "a cap of 0");
            A.True(e.Message.Contains("at least 1"), e.Message);
            A.Throws<ArgumentOutOfRangeException>(() => b.SetMaxFeaturesChanged(-1), "a negative cap");
        }
    }

    // An income in [0, 100000] at 43217; the model accepts an income above 43500. Advised in
    // multiples of 1000 by at least 2000 the answer is 46000 (44000 is only 783 more, 45000 1783).
    public static void T_builder_an_advice_grid_and_a_minimum_change_round_the_advice()
    {
        var applicant = new double[] { 43217 };
        using (var m = Model.Linear(new double[] { 1 }, -0.435))
        using (var free = new SchemaBuilder().AddContiguous("income", 0, 100000, false).Build())
        using (var grid = new SchemaBuilder().AddContiguous("income", 0, 100000, false)
            .SetAdviceGrid(1000, 2000).Build())
        {
            A.True(grid.ToJson().Contains("\"advice_step\": 1000.0"), grid.ToJson());
            using (var r = Coherent.Explain(free, m, null, applicant))
            {
                var v = r.Counterfactual(0)[0];
                A.True(v > 43500 && v < 43501, "without a grid: " + v);
            }
            using (var r = Coherent.Explain(grid, m, null, applicant))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "on the grid");
                A.Eq(46000.0, r.Counterfactual(0)[0], "the first multiple of 1000 at least 2000 above");
            }
        }
        using (var b = new SchemaBuilder().AddContiguous("income", 0, 100000, false))
        {
            var e = A.Status(Status.InvalidArgument, () => b.SetAdviceGrid(-1000, 0), "a negative step");
            A.True(e.Message.Contains("finite and non-negative"), e.Message);
            A.Status(Status.InvalidArgument, () => b.SetAdviceGrid(1000, double.NaN), "a NaN minimum");
        }
        var off = new SchemaBuilder().AddContiguous("n", 0, 10, true).SetAdviceGrid(2.5, 0);
        var err = A.Status(Status.InvalidSchema, () => off.Build(), "a fractional step on whole numbers");
        A.True(err.Message.Contains("whole number"), err.Message);
    }

    // The model accepts every job level but the first; only waiting moves the job, a band at a time.
    public static void T_builder_band_months_make_waiting_move_the_job_up_its_order()
    {
        using (var s = new SchemaBuilder()
            .AddCategorical("job", "< 1 year", "1 to 4 years", ">= 4 years")
            .SetLevelOrder("< 1 year", "1 to 4 years", ">= 4 years")
            .SetBandMonths("< 1 year", 12).SetBandMonths("1 to 4 years", 36)
            .SetWaiting(0.01, 24)
            .Build())
        using (var m = Model.Linear(new double[] { 0, 5, 5 }, -3))
        using (var a = Coherent.ExplainWithWaiting(s, m, null, new double[] { 0 }))
        {
            A.True(s.ToJson().Contains("\"band_months\""), s.ToJson());
            A.True(a.Found, "advice found");
            A.Eq(12, a.Summary.Months, "one band: 12 months");
            A.Eq(1.0, a.WaitedRow()[0], "the next band");
        }
        using (var b = new SchemaBuilder().AddCategorical("job", "a", "b"))
        {
            A.Status(Status.NotFound, () => b.SetBandMonths("c", 12), "unknown level");
            A.Throws<ArgumentOutOfRangeException>(() => b.SetBandMonths("a", -1), "negative months");
        }
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
            A.Status(Status.InvalidArgument, () => b.SetBandMonths("a", 12), "bands on a contiguous feature");
        var e = A.Status(Status.InvalidSchema,
            () => new SchemaBuilder().AddCategorical("job", "a", "b").SetLevelOrder("a", "b")
                .SetBandMonths("b", 12).SetWaiting(1, 12).Build(),
            "the last band has no next");
        A.True(e.Message.Contains("no next band"), e.Message);
    }

    // Months since the last inquiry in [0, 24]; the model accepts only "gone" (-7).
    static SchemaBuilder Inquiries()
    {
        return new SchemaBuilder().AddContiguous("inq", 0, 24, true).AddSpecialState(-7, "gone").SetTimeGrowth(1, "gone");
    }

    public static void T_builder_ends_after_closes_the_window_before_the_upper_bound()
    {
        var applicant = new double[] { 0 };
        using (var early = Inquiries().SetTimeGrowthEndsAfter(23).SetWaiting(0.01, 24).Build())
        using (var late = Inquiries().SetWaiting(0.01, 24).Build())
        using (var m = Model.Linear(new double[] { 0, 5 }, -3))
        {
            A.True(early.ToJson().Contains("\"ends_after\": 23"), early.ToJson());
            using (var a = Coherent.ExplainWithWaiting(early, m, null, applicant))
            {
                A.True(a.Found, "advice found");
                A.Eq(24, a.Summary.Months, "24 months");
                A.Eq(-7.0, a.WaitedRow()[0], "the window has closed");
            }
            using (var a = Coherent.ExplainWithWaiting(late, m, null, applicant))
                A.Eq(WaitingOutcome.NoAdvice, a.Outcome, "24 months old after 24 months");
        }
        var e = A.Status(Status.InvalidSchema,
            () => Inquiries().SetTimeGrowthEndsAfter(30).SetWaiting(0.01, 24).Build(), "outside the range");
        A.True(e.Message.Contains("ends_after"), e.Message);
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
            A.Status(Status.InvalidArgument, () => b.SetTimeGrowthEndsAfter(5), "no time growth");
    }

    // Months since a delinquency in [0, 83] and the file's age in [0, 100], both growing a month a
    // month; refuse makes the first refuse to pass 83. The model below accepts a file of 60 months
    // or more, whatever the delinquency.
    static Schema Delinquency(bool refuse)
    {
        return new SchemaBuilder()
            .AddContiguous("delq", 0, 83, true).SetTimeGrowth(1).SetTimeGrowthRefusePastUpper(refuse)
            .AddContiguous("file", 0, 100, true).SetTimeGrowth(1)
            .SetWaiting(0.01, 24)
            .Build();
    }

    public static void T_builder_refusing_past_the_upper_bound_shortens_the_wait()
    {
        var applicant = new double[] { 80, 50 };
        using (var capped = Delinquency(false))
        using (var refusing = Delinquency(true))
        using (var m = Model.Linear(new double[] { 0, 10 }, -5.95))
        {
            A.True(refusing.ToJson().Contains("\"past_upper\": \"refuse\""), refusing.ToJson());
            A.True(!capped.ToJson().Contains("past_upper"), capped.ToJson());
            using (var a = Coherent.ExplainWithWaiting(capped, m, null, applicant))
            {
                A.True(a.Found, "advice found");
                A.Eq(10, a.Summary.Months, "ten months");
                A.Eq(83.0, a.WaitedRow()[0], "the delinquency piled at 83");
                A.Eq(60.0, a.WaitedRow()[1], "a file of 60 months");
            }
            using (var a = Coherent.ExplainWithWaiting(refusing, m, null, applicant))
                A.Eq(WaitingOutcome.NoAdvice, a.Outcome, "at most 3 months: the file only 53 months old");
        }
        var e = A.Status(Status.InvalidSchema,
            () => Inquiries().SetTimeGrowthRefusePastUpper().SetWaiting(0.01, 24).Build(), "refusing with an end state");
        A.True(e.Message.Contains("past_upper"), e.Message);
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
            A.Status(Status.InvalidArgument, () => b.SetTimeGrowthRefusePastUpper(), "no time growth");
    }

    // The file's age in [0, 100] months, growing a month a month (range null, or where a wait may
    // take it), and x in [0, 10], integer. The model's score is 10*file/100 - 3*x/10 - 2.45: with
    // x = 0 a file of 25 months or more is accepted, with x = 10 one of 55; a month of waiting
    // (cost 0.01) adds 0.1, lowering x by 1 (cost 0.1) adds 0.3.
    static Schema Files(double[] range)
    {
        var b = new SchemaBuilder().AddContiguous("file", 0, 100, true).SetTimeGrowth(1);
        if (range != null) b.SetTimeGrowthAdvisedRange(range[0], range[1]);
        return b.AddContiguous("x", 0, 10, true).SetWaiting(0.01, 24).Build();
    }

    static Model FilesModel() { return Model.Linear(new double[] { 10, -3 }, -2.45); }

    // Every "advised_range": [low, high] of a schema's JSON, in feature order.
    static List<double[]> AdvisedRanges(Schema s)
    {
        var found = new List<double[]>();
        foreach (Match m in Regex.Matches(s.ToJson(), @"""advised_range""\s*:\s*\[\s*([^,\s]+)\s*,\s*([^\]\s]+)\s*\]"))
            found.Add(new[] { double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture),
                              double.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture) });
        return found;
    }

    static void SameRow(double[] expected, double[] actual, string what)
    {
        A.Eq(expected.Length, actual.Length, what + " length");
        for (int i = 0; i < expected.Length; i++) A.Near(expected[i], actual[i], 1e-12, what + "[" + i + "]");
    }

    public static void T_builder_an_advised_range_keeps_waits_where_it_says()
    {
        using (var free = Files(null))
        using (var ranged = Files(new double[] { 30, 40 }))
        using (var m = FilesModel())
        {
            var r = AdvisedRanges(ranged);
            A.Eq(1, r.Count, ranged.ToJson());
            SameRow(new double[] { 30, 40 }, r[0], "the advised range");
            A.True(!free.ToJson().Contains("advised_range"), free.ToJson());
            // File 20: five months reach 25; within [30, 40] the waits are 0 and 10 to 20.
            using (var a = Coherent.ExplainWithWaiting(free, m, null, new double[] { 20, 0 }))
            {
                A.True(a.Found, "advice found");
                A.Eq(5, a.Summary.Months, "five months without the range");
                SameRow(new double[] { 25, 0 }, a.FinalRow(), "a file of 25 months");
            }
            using (var a = Coherent.ExplainWithWaiting(ranged, m, null, new double[] { 20, 0 }))
            {
                A.True(a.Found, "advice found");
                A.Eq(10, a.Summary.Months, "ten months within [30, 40]");
                A.Near(0.10, a.Summary.TotalCost, 1e-9, "ten months' cost");
                SameRow(new double[] { 30, 0 }, a.FinalRow(), "a file of 30 months");
            }
            // File 45, x 10: ten months (55) cost 0.10, below lowering x to 6 (0.4); above the range
            // every wait leaves it, so x moves.
            using (var a = Coherent.ExplainWithWaiting(free, m, null, new double[] { 45, 10 }))
            {
                A.Eq(10, a.Summary.Months, "ten months without the range");
                SameRow(new double[] { 55, 10 }, a.FinalRow(), "a file of 55 months");
            }
            using (var a = Coherent.ExplainWithWaiting(ranged, m, null, new double[] { 45, 10 }))
            {
                A.Eq(0, a.Summary.Months, "no advisable wait above the range");
                A.Near(0.4, a.Summary.TotalCost, 1e-9, "x lowered by 4");
                SameRow(new double[] { 45, 6 }, a.FinalRow(), "x at 6");
            }
        }
        // A wait into the ends_in state is not judged: from 20, five months carry the inquiry out of
        // the window although 21 to 24 lie outside [0, 5].
        using (var s = Inquiries().SetTimeGrowthAdvisedRange(0, 5).SetWaiting(0.01, 24).Build())
        using (var m = Model.Linear(new double[] { 0, 5 }, -3))
        using (var a = Coherent.ExplainWithWaiting(s, m, null, new double[] { 20 }))
        {
            A.True(a.Found, "advice found");
            A.Eq(5, a.Summary.Months, "five months into gone");
            SameRow(new double[] { -7 }, a.WaitedRow(), "gone");
        }
        var e = A.Status(Status.InvalidSchema, () => Files(new double[] { 40, 30 }), "low above high");
        A.True(e.Message.Contains("advised_range"), e.Message);
        using (var b = new SchemaBuilder().AddContiguous("file", 0, 100, true).SetTimeGrowth(1))
            A.Status(Status.InvalidArgument, () => b.SetTimeGrowthAdvisedRange(double.NaN, 40), "a NaN bound");
        using (var b = new SchemaBuilder().AddContiguous("m", 0, 10, true))
            A.Status(Status.InvalidArgument, () => b.SetTimeGrowthAdvisedRange(0, 5), "no time growth");
    }

    public static void T_builder_plausibility_advises_waits_within_the_accepted_applicants_range()
    {
        // Accepted files 30..=40: the type-7 1% and 99% points are 30 + 0.1 and 39 + 0.9. The
        // declined rows (0, 60 and 100 months) are not counted.
        var rows = new double[14][];
        var labels = new double[14];
        for (int k = 0; k < 11; k++)
        {
            rows[k] = new double[] { 30 + k, 5 };
            labels[k] = 1;
        }
        rows[11] = new double[] { 0, 0 };
        rows[12] = new double[] { 60, 10 };
        rows[13] = new double[] { 100, 3 };
        using (var free = Files(null))
        using (var m = FilesModel())
        using (var p = Plausibility.Fit(free, rows, labels))
        using (var within = p.AdviseWaits())
        {
            var r = AdvisedRanges(within);
            A.Eq(1, r.Count, within.ToJson());
            A.Near(30.1, r[0][0], 1e-9, "the 1% point");
            A.Near(39.9, r[0][1], 1e-9, "the 99% point");
            A.True(!free.ToJson().Contains("advised_range"), "the fitted schema is unchanged");
            // File 20: waits 0 and 11 to 19 land inside [30.1, 39.9]; 11 months are accepted.
            using (var a = Coherent.ExplainWithWaiting(within, m, null, new double[] { 20, 0 }))
            {
                A.Eq(11, a.Summary.Months, "eleven months");
                SameRow(new double[] { 31, 0 }, a.FinalRow(), "a file of 31 months");
            }
            using (var a = Coherent.ExplainWithWaiting(within, m, null, new double[] { 45, 10 }))
            {
                A.Eq(0, a.Summary.Months, "no advisable wait above the range");
                SameRow(new double[] { 45, 6 }, a.FinalRow(), "x at 6");
            }
        }
    }
}
