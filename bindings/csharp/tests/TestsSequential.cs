// Tests of the sequential (P-DQN) entry points, against the C example examples/c/sequential.c.
using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using Cfx;

public static partial class Tests
{
    static Config SmallRlConfig()
    {
        return new ConfigBuilder().RlEpisodes(300, 18).RlTraining(0.8, 1e-3, 1e-3, 32, 500).RlHidden(32).Seed(7).Build();
    }

    public static void T_sequential_policy_training_callback_plan_and_metrics()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train, 1.0))
            using (var config = SmallRlConfig())
            {
                int calls = 0;
                long lastDone = 0, total = 0;
                int thread = Thread.CurrentThread.ManagedThreadId, otherThread = 0;
                using (var policy = Policy.Train(train, m, config, RewardKind.Probability, p =>
                {
                    calls++;
                    lastDone = p.EpisodesDone;
                    total = p.EpisodesTotal;
                    if (Thread.CurrentThread.ManagedThreadId != thread) otherThread++;
                    return true;
                }))
                {
                    // The C example's line: "trained: 18 actions, 100 progress reports, last at 300/300 episodes".
                    A.Eq(18, policy.ActionCount, "actions");
                    A.Eq(100, calls, "progress reports");
                    A.Eq(300L, lastDone, "last report at the end");
                    A.Eq(300L, total, "episodes total");
                    A.Eq(0, otherThread, "called on the calling thread");

                    int declined = Enumerable.Range(0, test.RowCount).First(i => !m.PredictRaw(s, test.Row(i)).Accepted);
                    var raw = test.Row(declined);
                    A.Eq(2, declined, "first declined hold-out applicant");
                    A.Eq("0.349", m.PredictRaw(s, raw).Probability.ToString("F3", CultureInfo.InvariantCulture), "its probability");
                    using (var plan = policy.Answer(s, m, raw))
                    {
                        A.Eq(1, plan.StepCount, "one step");
                        A.True(plan.Success, "plan reaches acceptance");
                        A.Eq(m.PredictRaw(s, raw).Probability, plan.InitialProbability, "initial probability");
                        A.Eq("savings_account_and_bonds: '... < 100 DM' → 'unknown/ no savings account'", plan.StepText(0), "step text (C example)");
                        var step = plan.Step(0);
                        A.Eq("0.533", step.Probability.ToString("F3", CultureInfo.InvariantCulture), "step probability (C example)");
                        A.Eq(s.IndexOf("savings_account_and_bonds"), step.Feature, "step feature");
                        A.Eq(raw[step.Feature], step.From, "step starts from the applicant's value");
                        var after = (double[])raw.Clone();
                        after[step.Feature] = step.To;
                        A.Near(m.PredictRaw(s, after).Probability, step.Probability, 1e-12, "step probability = model probability");
                        A.Status(Status.NotFound, () => plan.Step(1), "step past the end");
                        A.Status(Status.NotFound, () => plan.StepText(1), "step text past the end");
                        A.True(plan.ToJson().Contains("\"sequential_plan\""), "plan JSON kind");

                        using (var copy = Policy.FromJson(policy.ToJson()))
                        using (var plan2 = copy.Answer(s, m, raw))
                        {
                            A.Eq(policy.ToJson(), copy.ToJson(), "policy JSON round trip");
                            A.Eq(plan.ToJson(), plan2.ToJson(), "identical plan from the copy");
                        }
                        var file = Path.Combine(Path.GetTempPath(), "cfx_cs_policy_" + Guid.NewGuid().ToString("N") + ".json");
                        try
                        {
                            policy.Save(file);
                            using (var loaded = Policy.Load(file))
                                A.Eq(policy.ToJson(), loaded.ToJson(), "save/load round trip");
                        }
                        finally { File.Delete(file); }
                        A.Status(Status.IoError, () => Policy.Load("/nonexistent/policy.json"), "missing policy file");
                        A.Status(Status.FormatError, () => Policy.FromJson("{\"format_version\": 99}"), "bad policy JSON");
                    }
                    var metrics = policy.Evaluate(m, test);
                    A.Eq(65L, metrics.Instances, "declined hold-out applicants (C example)");
                    A.Eq("0.415", metrics.Satisfiability.ToString("F3", CultureInfo.InvariantCulture), "satisfiability (C example)");
                    A.Eq(test.RowCount - 65L, metrics.AlreadyAccepted, "the rest were already accepted");
                    A.True(metrics.Entropy >= 0 && metrics.Entropy <= 1, "entropy in [0, 1]");
                }

                // Returning false cancels: CANCELLED and no policy.
                int stopCalls = 0;
                A.Status(Status.Cancelled, () => Policy.Train(train, m, config, RewardKind.Binary, p => { stopCalls++; return false; }), "callback returns false");
                A.Eq(1, stopCalls, "stopped after the first report");
                // A managed exception in the callback never crosses Rust: training stops, it is rethrown here.
                var e = A.Throws<InvalidOperationException>(() => Policy.Train(train, m, config, RewardKind.Binary,
                    p => { throw new FormatException("from the callback"); }), "callback throws");
                A.True(e.InnerException is FormatException, "inner exception kept");
                using (var again = Policy.Train(train, m, config, RewardKind.Probability))
                {
                    A.Eq(18, again.ActionCount, "trains without a callback");
                }
            }
        }
    }

    public static void T_sequential_objects_dispose_once_and_throw_after()
    {
        CfxHandle.Tracking = true;
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var m = Model.FitLinear(d, 1.0))
        using (var config = new ConfigBuilder().RlEpisodes(20, 4).RlHidden(8).Seed(1).Build())
        {
            var policy = Policy.Train(d, m, config, RewardKind.Binary);
            int declined = Enumerable.Range(0, d.RowCount).First(i => !m.PredictRaw(s, d.Row(i)).Accepted);
            var plan = policy.Answer(s, m, d.Row(declined));
            var serials = new[] { policy.Handle.Serial, plan.Handle.Serial };
            policy.Dispose();
            A.True(plan.StepCount >= 0, "a plan outlives its policy handle");
            plan.Dispose(); plan.Dispose(); policy.Dispose();
            foreach (var id in serials) A.Eq(1, CfxHandle.Releases[id], "freed exactly once");
            A.Throws<ObjectDisposedException>(() => policy.ToJson(), "disposed policy");
            A.Throws<ObjectDisposedException>(() => plan.Step(0), "disposed plan");
        }
    }
}
