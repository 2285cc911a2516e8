// Robust advice over the values an applicant can reach (cfx_config_builder_set_robust_box), through P/Invoke.
using System;
using Cfx;

public static partial class Tests
{
    /// <summary>On the hand-written German tree model the answer over reachable values is accepted, its Γ̃
    /// (estimated under slips clipped to the range and rounded to the data's grid) meets the target within
    /// four standard errors, and the answer says which box it proves; a logistic model refuses the box, and
    /// an unknown box is refused.</summary>
    public static void T_robust_box_of_reachable_values_on_trees_and_refused_by_a_linear_model()
    {
        using (var g = new GermanHoldout())
        using (var trees = Model.FromXgboostFile(g.Schema, TreesXgboostPath))
        using (var reach = new ConfigBuilder().RobustAdvice(0.0025, 0.2).RobustBox(RobustBox.ReachableValues).Build())
        using (var reals = new ConfigBuilder().RobustAdvice(0.0025, 0.2).RobustBox(RobustBox.Reals).Build())
        {
            var s = g.Schema;
            var raw = g.FirstDeclined(trees);
            using (var r = Coherent.Explain(s, trees, reach, raw))
            using (var q = Coherent.Explain(s, trees, reals, raw))
            {
                A.True(r.Count >= 1 && q.Count >= 1, "answers");
                A.True(trees.PredictRaw(s, r.Counterfactual(0)).Accepted, "accepted");
                double se = Math.Sqrt(0.2 * 0.8 / 10000);
                double gamma = r.InvalidationRate(0);
                A.True(gamma >= 0 && gamma <= 0.2 + 4 * se, "Γ̃ = " + gamma);
                A.True(r.Describe().Contains("over reachable values"), r.Describe());
                A.True(!q.Describe().Contains("over reachable values"), q.Describe());
            }
            var e = A.Status(Status.InvalidArgument, () => Coherent.Explain(s, g.Linear, reach, raw), "a linear model");
            A.True(e.NativeMessage.Contains("reachable"), e.NativeMessage);
            A.Status(Status.InvalidArgument, () => new ConfigBuilder().RobustBox((RobustBox)7), "box 7");
        }
    }
}
