// Robust advice from the exact engine and plausibility flags, through P/Invoke.
using System;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>German credit, logistic model: the robust answer's Γ meets the 10% target and costs at
    /// least the plain optimum; an advice of 18,000 DM credit is flagged above the accepted applicants'
    /// 99% point, and nothing else is flagged; bad input is refused.</summary>
    public static void T_robust_advice_meets_its_target_and_absurd_advice_is_flagged()
    {
        using (var g = new GermanHoldout())
        using (var robust = new ConfigBuilder().RobustAdvice(0.01, 0.1).Build())
        {
            var s = g.Schema;
            var m = g.Linear;
            var train = g.Train;
            var rows = Enumerable.Range(0, train.RowCount).Select(i => train.Row(i)).ToArray();
            var labels = Enumerable.Range(0, train.RowCount).Select(i => train.Label(i)).ToArray();
            var raw = g.FirstDeclined(m);
            using (var ranges = Plausibility.Fit(s, rows, labels))
            using (var plain = Coherent.Explain(s, m, null, raw))
            using (var r = Coherent.Explain(s, m, robust, raw))
            {
                A.True(double.IsNaN(plain.InvalidationRate(0)), "no rate without robust advice");
                double gamma = r.InvalidationRate(0);
                A.True(gamma > 0 && gamma <= 0.1, "Γ = " + gamma);
                A.True(r.Certificate(0).Cost >= plain.Certificate(0).Cost - 1e-9, "robust costs at least the optimum");
                A.True(r.Describe().Contains("robust to slips (σ² = 0.01, ≤ 10% declined)"), r.Describe());
                int amount = Array.IndexOf(s.FeatureNames(), "credit_amount");
                A.True(amount >= 0, "credit_amount column");
                var absurd = (double[])raw.Clone();
                absurd[amount] = 18000;
                var a = ranges.Assess(raw, absurd);
                A.True(a.AnyImplausible, "18,000 DM is implausible");
                A.Eq(1, a.Flags[amount], "flag of the amount");
                A.True(a.Distances[amount] > 0, "distance above the range");
                for (int i = 0; i < s.FeatureCount; i++)
                    if (i != amount) A.Eq(-1, a.Flags[i], "unchanged feature " + i);
                A.Status(Status.DimensionMismatch, () => ranges.Assess(new double[] { 1 }, absurd), "short row");
            }
            A.Status(Status.InvalidArgument, () => new ConfigBuilder().RobustAdvice(0.01, 1.0), "target 1");
        }
    }
}
