// Tests of the COPA entry points, against the C example examples/c/copa.c (copa.expected).
using System;
using System.Globalization;
using System.Linq;
using Cfx;

public static partial class Tests
{
    // copa.c's toy moments: theta = (bias, w1, w2), the intercept first.
    static readonly double[] ToyMean = { -1.0, 2.0, 1.0 };
    static readonly double[] ToyCov = { 0.5, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.3 };
    static readonly double[][] ToyPlan = { new[] { 0.8, 0.5 }, new[] { 0.3, 1.5 } }; // no intercept

    public static void T_copa_toy_bounds_match_cantelli_and_the_c_example()
    {
        using (var u = Uncertainty.FromMoments(ToyMean, ToyCov))
        {
            A.Eq(3, u.Dim, "toy: theta dimension 3");

            // One option: L* = mu^2 / (mu^2 + s^2) (one-sided Chebyshev), U* = 1.
            var b = Copa.Bounds(u, new[] { ToyPlan[0] }, 0.0);
            double[] x = ToyPlan[0];
            double mu = ToyMean[0] + ToyMean[1] * x[0] + ToyMean[2] * x[1];
            double s2 = ToyCov[0] + ToyCov[4] * x[0] * x[0] + ToyCov[8] * x[1] * x[1];
            double cantelli = mu * mu / (mu * mu + s2);
            A.Eq("0.6325", F4(b.Lower), "1 option: L* (C example)");
            A.Eq("0.6325", F4(cantelli), "Cantelli (C example)");
            A.Near(cantelli, b.Lower, 1e-5, "L* = Cantelli's closed form");
            A.Eq(CopaStatus.Optimal, b.LowerStatus, "1 option: L* status 0");
            A.Eq(1.0, b.Upper, "1 option: U* = 1");
            A.Eq(CopaStatus.TrivialMeanInside, b.UpperStatus, "1 option: U* status 7");

            b = Copa.Bounds(u, ToyPlan, 0.0);
            A.Eq("0.3912", F4(b.Lower), "2 options, rho 0: L* (C example)");
            A.Eq(CopaStatus.Optimal, b.LowerStatus, "2 options, rho 0: L* status");
            A.Eq("1.0000", F4(b.Upper), "2 options, rho 0: U*");
            A.Eq(CopaStatus.TrivialMeanInside, b.UpperStatus, "2 options, rho 0: U* status");

            b = Copa.Bounds(u, ToyPlan, 0.1);
            A.Eq("0.2806", F4(b.Lower), "2 options, rho 0.1: L* (C example)");
            A.Eq(CopaStatus.Optimal, b.LowerStatus, "2 options, rho 0.1: L* status");
            A.Eq("1.0000", F4(b.Upper), "2 options, rho 0.1: U*");
            A.Eq(CopaStatus.TrivialMeanInside, b.UpperStatus, "2 options, rho 0.1: U* status");

            // The row-major overload gives the same bits as the jagged one.
            var flat = Copa.Bounds(u, new[] { 0.8, 0.5, 0.3, 1.5 }, 2, 2, 0.1);
            A.SameBits(new[] { b.Lower, b.Upper }, new[] { flat.Lower, flat.Upper }, "row-major = jagged");

            // Bad inputs: the library's refusals become CfxException, length errors are caught before the call.
            A.Status(Status.InvalidArgument, () => Copa.Bounds(u, ToyPlan, double.NaN), "rho NaN");
            A.Status(Status.DimensionMismatch, () => Copa.Bounds(u, new[] { new[] { 1.0, 2.0, 3.0 } }, 0.0), "option of d values (with an intercept)");
            A.Throws<ArgumentException>(() => Copa.Bounds(u, new[] { 0.8, 0.5, 0.3 }, 2, 2, 0.0), "3 values for 2 × 2");
            A.Throws<ArgumentException>(() => Copa.Bounds(u, new[] { new[] { 0.8, 0.5 }, new[] { 0.3 } }, 0.0), "ragged options");
            A.Throws<ArgumentNullException>(() => Copa.Bounds(null, ToyPlan, 0.0), "null uncertainty");
        }
        A.Status(Status.InvalidArgument, () => Uncertainty.FromMoments(new[] { -1.0, double.PositiveInfinity, 1.0 }, ToyCov), "non-finite mean");
        A.Status(Status.DimensionMismatch, () => Uncertainty.FromMoments(ToyMean, new[] { 1.0, 0.0, 0.0, 1.0 }), "cov of 4 values for d = 3");
    }

    public static void T_copa_correction_raises_the_lower_bound_as_in_the_C_example()
    {
        var weak = new[] { new[] { 0.2, 0.1 }, new[] { 0.8, 0.5 } };
        using (var u = Uncertainty.FromMoments(ToyMean, ToyCov))
        {
            var c = Copa.Correct(u, weak, 0.0, 0.1);
            A.Eq(2, c.Options.Length, "2 options");
            A.Eq(4, c.Options.Sum(o => o.Length), "correction: 4 values (C example)");
            A.Eq("0.0000", F4(c.LowerBefore), "L* before (C example)");
            A.True(c.LowerAfter > c.LowerBefore, "raised: yes (C example)");
            // The corrected plan's own bound is the reported L* after.
            A.Near(c.LowerAfter, Copa.Bounds(u, c.Options, 0.0).Lower, 1e-9, "L* after = bounds of the corrected plan");
            // The first option is projected onto the Requirement half-space mu^T x~ >= 0.1.
            var x = c.Options[0];
            A.True(ToyMean[0] + ToyMean[1] * x[0] + ToyMean[2] * x[1] >= 0.1 - 1e-6, "Requirement projection");
            var again = Copa.Correct(u, weak, 0.0, 0.1);
            A.SameBits(c.Options[0].Concat(c.Options[1]).ToArray(), again.Options[0].Concat(again.Options[1]).ToArray(), "same bits");
            A.Status(Status.InvalidArgument, () => Copa.Correct(u, weak, 0.0, double.NaN), "delta NaN");
            A.Status(Status.InvalidArgument, () => Copa.Correct(u, weak, -1.0, 0.1), "negative rho");
            A.Status(Status.DimensionMismatch, () => Copa.Correct(u, new[] { new[] { 1.0, 2.0, 3.0 } }, 0.0, 0.1), "option of d values");
            A.Throws<ArgumentException>(() => Copa.Correct(u, new[] { new[] { 0.8, 0.5 }, new[] { 0.3 } }, 0.0, 0.1), "ragged options");
            A.Throws<ArgumentNullException>(() => Copa.Correct(null, weak, 0.0, 0.1), "null uncertainty");
        }
    }

    public static void T_copa_plan_for_a_german_applicant()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var ens = Uncertainty.FromDataset(train, 10, 1))
            using (var config = new ConfigBuilder().NDiverse(3).Seed(7).Build())
            {
                A.Eq(s.EncodedDim + 1, ens.Dim, "german: theta dimension = 1 + encoded dimension");
                var raw = test.Row(0);
                using (var plan = Copa.Plan(s, ens, config, raw))
                {
                    A.Eq(3, plan.OptionCount, "options 3 (C example)");
                    for (int k = 0; k < plan.OptionCount; k++)
                        A.Eq(s.FeatureCount, plan.Option(k).Length, "option " + (k + 1) + " has all features");
                    A.Status(Status.NotFound, () => plan.Option(3), "option 4: not found");
                    A.Throws<ArgumentOutOfRangeException>(() => plan.Option(-1), "negative option index");

                    var m = plan.Metrics;
                    A.True(m.Proximity >= 0.0, "proximity >= 0");
                    A.True(m.Diversity > 0.0, "diversity > 0");
                    A.True(0.0 <= m.Lower && m.Lower <= m.Upper && m.Upper <= 1.0, "0 <= L* <= U* <= 1");

                    var text = plan.Describe();
                    A.Eq(3, text.Count(c => c == '\n'), "description lines 3");
                    A.True(text.StartsWith("option 1:", StringComparison.Ordinal), "starts with \"option 1:\"");
                    var json = plan.ToJson();
                    A.True(json.Contains("\"kind\": \"copa_plan\""), "json kind copa_plan");

                    // Same inputs, same seed: the same bytes.
                    using (var again = Copa.Plan(s, ens, config, raw))
                        A.Eq(json, again.ToJson(), "deterministic JSON");
                }
                // A null config takes the COPA defaults (5 options).
                using (var byDefault = Copa.Plan(s, ens, null, raw))
                    A.Eq(5, byDefault.OptionCount, "default number of options");

                // Bad inputs become CfxException.
                using (var toy = Uncertainty.FromMoments(ToyMean, ToyCov))
                    A.Status(Status.DimensionMismatch, () => Copa.Plan(s, toy, config, raw), "uncertainty of the wrong dimension");
                A.Status(Status.DimensionMismatch, () => Copa.Plan(s, ens, config, raw.Take(3).ToArray()), "short raw row");
                A.Status(Status.InvalidArgument, () => Uncertainty.FromDataset(train, 1, 1), "one refit");
            }
        }
    }

    public static void T_copa_objects_dispose_once_and_throw_after()
    {
        CfxHandle.Tracking = true;
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            var ens = Uncertainty.FromDataset(d, 3, 2);
            var plan = Copa.Plan(s, ens, null, d.Row(0));
            var serials = new[] { ens.Handle.Serial, plan.Handle.Serial };
            ens.Dispose();
            A.True(plan.OptionCount > 0, "a plan outlives its uncertainty handle");
            A.True(plan.ToJson().Contains("copa_plan"), "and still writes its JSON");
            plan.Dispose(); plan.Dispose(); ens.Dispose();
            foreach (var id in serials) A.Eq(1, CfxHandle.Releases[id], "freed exactly once");
            A.True(ens.IsDisposed && plan.IsDisposed, "IsDisposed");
            A.Throws<ObjectDisposedException>(() => { var n = ens.Dim; }, "disposed uncertainty");
            A.Throws<ObjectDisposedException>(() => Copa.Bounds(ens, ToyPlan, 0.0), "disposed uncertainty in Bounds");
            A.Throws<ObjectDisposedException>(() => Copa.Plan(s, ens, null, d.Row(0)), "disposed uncertainty in Plan");
            A.Throws<ObjectDisposedException>(() => plan.Option(0), "disposed plan");
            A.Throws<ObjectDisposedException>(() => { var m = plan.Metrics; }, "disposed plan metrics");
        }
    }
}
