// The builder's last advice setters (issue 25), each shown to take effect on a model whose answer is
// known by hand, and each refusing a bad value.
using System;
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
}
