// Tests of the coherent (MIP) entry points, against the C example examples/c/coherent.c.
using System;
using System.Globalization;
using System.Linq;
using Cfx;

public static partial class Tests
{
    // The exact engine on a ReLU network with LP bound tightening (default) and with the interval bounds
    // alone (the textbook big-M program): both exact, so each is the other's oracle.
    public static void T_mlp_bound_tightening_off_proves_the_same_optimum()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var mlp = Model.TrainMlp(train, new[] { 8 }, 30, 32, 0.01, 1e-4, 42))
            using (var tight = new ConfigBuilder().TimeLimit(60).Build())
            using (var plain = new ConfigBuilder().TimeLimit(60).MlpBoundTightening(false).Build())
            {
                int checkedRows = 0;
                for (int i = 0; i < test.RowCount && checkedRows < 2; i++)
                {
                    var a = test.Row(i);
                    if (mlp.PredictRaw(s, a).Accepted) continue;
                    using (var r1 = Coherent.Explain(s, mlp, tight, a))
                    using (var r2 = Coherent.Explain(s, mlp, plain, a))
                    {
                        A.Eq(CoherentOutcome.Optimal, r1.Outcome, "tightened: optimal");
                        A.Eq(CoherentOutcome.Optimal, r2.Outcome, "interval bounds: optimal");
                        var c1 = r1.Certificate(0).Cost;
                        A.Near(c1, r2.Certificate(0).Cost, 1e-9 * Math.Max(1.0, Math.Abs(c1)), "same optimum");
                        A.True(mlp.PredictRaw(s, r2.Counterfactual(0)).Accepted, "accepted by the network");
                    }
                    checkedRows++;
                }
                A.True(checkedRows > 0, "a declined applicant");
            }
        }
    }

    public static void T_coherent_optimal_diverse_and_infeasible_as_in_the_C_example()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        {
            using (var r = Coherent.Explain(s, m, null, Applicant))
            {
                A.Eq(CoherentOutcome.Optimal, r.Outcome, "outcome");
                A.Eq(BlockingGroups.None, r.Blocking, "mask");
                A.Eq(1, r.Count, "one counterfactual");
                var c = r.Certificate(0);
                A.Eq("0.2833 0.5000", F4(c.Cost) + " " + F4(c.Probability), "cost and probability (C example)");
                A.True(c.MipGap <= 1e-6, "gap");
                A.True(c.SolveSeconds >= 0, "solve time");
                var row = r.Counterfactual(0);
                A.SameBits(new double[] { 58334, -7, 1, 30 }, row, "row (C example)");
                var p = m.PredictRaw(s, row);
                A.True(p.Accepted, "the counterfactual is accepted by the model");
                A.Near(p.Probability, c.Probability, 1e-12, "certificate probability = model probability");
                A.Near(p.Score, c.Score, 1e-12, "certificate score = model score");
                // One income unit less is declined: the MIP found the cheapest integer change.
                var less = (double[])row.Clone();
                less[0] -= 1;
                A.True(!m.PredictRaw(s, less).Accepted, "one unit less is declined");
                A.True(r.Describe().Contains("optimal (cost 0.283, probability 0.500): income: 30000 → 58334"), r.Describe());
                var json = r.ToJson();
                A.True(json.Contains("\"kind\": \"coherent\""), "JSON kind");
                using (var again = Coherent.Explain(s, m, null, Applicant))
                    A.Eq(json, again.ToJson(), "same JSON bytes for the same inputs");
                A.Status(Status.NotFound, () => r.Counterfactual(1), "counterfactual 1");
                A.Status(Status.NotFound, () => r.Certificate(5), "certificate 5");
            }
            using (var config = new ConfigBuilder().NDiverse(3).DiversityRule(DiversityRule.DistinctSubsets).Build())
            {
                using (var r = Coherent.ExplainDiverse(s, m, config, Applicant))
                {
                    A.Eq(2, r.Count, "two counterfactuals (C example)");
                    A.SameBits(new double[] { 30000, 91, 0, 30 }, r.Counterfactual(1), "alternative row");
                    A.Eq("3.2583", F4(r.Certificate(1).Cost), "alternative cost");
                    A.True(r.Describe().Contains("housing: 'rent' → 'own'"), r.Describe());
                }
                using (var ageOnly = Model.Linear(new double[] { 0, 0, 0, 0, 0, 0, 4 }, -3.0, 0.5))
                using (var r = Coherent.Explain(s, ageOnly, config, Applicant))
                {
                    A.Eq(CoherentOutcome.Infeasible, r.Outcome, "no recourse");
                    A.Eq(BlockingGroups.Immutables, r.Blocking, "blocked by the immutable age");
                    A.Eq(0, r.Count, "no counterfactual");
                    A.True(r.Describe().Contains("blocked by: immutable features"), r.Describe());
                }
            }
            A.Status(Status.InvalidArgument, () => Coherent.Explain(s, m, null, new[] { double.NaN, -7, 1, 30 }), "NaN row");
            A.Status(Status.DimensionMismatch, () => Coherent.Explain(s, m, null, new double[] { 1, 2 }), "short row");
            A.Status(Status.InvalidArgument, () => Coherent.Explain(s, m, null, new double[] { 90000, -7, 1, 30 }), "already accepted");
        }
    }

    public static void T_coherent_on_german_and_result_lifetime()
    {
        CfxHandle.Tracking = true;
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var m = Model.FitLinear(d, 1.0))
        using (var config = new ConfigBuilder().TimeLimit(20).Build())
        {
            int i = Enumerable.Range(0, d.RowCount).First(k => !m.PredictRaw(s, d.Row(k)).Accepted);
            var r = Coherent.Explain(s, m, config, d.Row(i));
            long serial = r.Handle.Serial;
            A.True(r.Outcome == CoherentOutcome.Optimal || r.Outcome == CoherentOutcome.Infeasible, "outcome " + r.Outcome);
            if (r.Outcome == CoherentOutcome.Optimal)
            {
                var cf = r.Counterfactual(0);
                A.True(m.PredictRaw(s, cf).Accepted, "German counterfactual accepted");
                var from = d.Row(i);
                foreach (var name in new[] { "personal_status_and_sex", "foreign_worker" })
                {
                    int j = s.IndexOf(name);
                    A.Eq(from[j], cf[j], name + " is immutable");
                }
                A.True(cf[s.IndexOf("age_in_years")] >= from[s.IndexOf("age_in_years")], "age only increases");
            }
            r.Dispose();
            r.Dispose();
            A.Eq(1, CfxHandle.Releases[serial], "freed once");
            A.Throws<ObjectDisposedException>(() => r.Describe(), "disposed result");
        }
    }

    public static void T_coherent_in_parallel_threads_sharing_handles()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var m = Model.FitLinear(d, 1.0))
        using (var config = new ConfigBuilder().TimeLimit(30).Build())
        {
            var declined = Enumerable.Range(0, d.RowCount).Where(k => !m.PredictRaw(s, d.Row(k)).Accepted).Take(8).ToArray();
            var serial = declined.Select(k => { using (var r = Coherent.Explain(s, m, config, d.Row(k))) return r.ToJson(); }).ToArray();
            var parallel = new string[declined.Length];
            var threads = Enumerable.Range(0, 4).Select(t => new System.Threading.Thread(() =>
            {
                for (int i = t; i < declined.Length; i += 4)
                    using (var r = Coherent.Explain(s, m, config, d.Row(declined[i]))) parallel[i] = r.ToJson();
            })).ToList();
            threads.ForEach(th => th.Start());
            threads.ForEach(th => th.Join());
            for (int i = 0; i < declined.Length; i++)
                A.Eq(serial[i], parallel[i], "applicant " + declined[i] + ": same JSON from 4 threads sharing schema, model, config");
        }
    }
}
