// Tests of the robustness entry points (noise, estimator, workspace, robust generators).
using System;
using System.Globalization;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>Φ via erfc (Numerical Recipes erfcc, fractional error below 1.2e-7).</summary>
    static double Phi(double z)
    {
        double x = -z / Math.Sqrt(2.0);
        double t = 1.0 / (1.0 + 0.5 * Math.Abs(x));
        double r = t * Math.Exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
                   t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
                   t * (-0.82215223 + t * 0.17087277)))))))));
        double erfc = x >= 0 ? r : 2.0 - r;
        return 0.5 * erfc;
    }


    public static void T_robust_estimates_match_closed_form_and_the_C_example()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        using (var noise = Noise.Gaussian(s, 0.01))
        using (var est = new Estimator(noise, 10000, Sampling.Generic))
        using (var ws = new Workspace(m, 42))
        {
            var richer = (double[])Applicant.Clone();
            richer[0] = 60000;
            var x = s.Encode(richer);
            var e = est.Estimate(m, ws, x);
            double exact = est.ExactRate(m, x);
            double probe = est.ProbeRate(m, ws, x);
            // Closed form (Guyomard et al. 2023 §2.3): noise on the value slots of income (w 4.0) and
            // months since delinquency (w 1.5); score 0.0667; logit(0.5) = 0.
            double score = m.Predict(x).Score;
            double closed = Phi((0.0 - score) / Math.Sqrt(0.01 * (4.0 * 4.0 + 1.5 * 1.5)));
            A.Near(closed, exact, 1e-6, "exact rate = Φ((logit t − s)/√(wᵀΣw))");
            A.Near(exact, probe, 1e-9, "PROBE's first-order rate is exact for a linear model");
            A.True(Math.Abs(e.Gamma - exact) <= 4 * e.GammaStdErr, "Monte Carlo within 4 se of exact");
            // Same seed, same bits as the C example examples/c/robust.c.
            A.Eq("0.4346 0.0050 0.4380 0.4380", F4(e.Gamma) + " " + F4(e.GammaStdErr) + " " + F4(exact) + " " + F4(probe), "C example line 1");
            A.Eq("0.4838 0.0010", F4(e.Theta) + " " + F4(e.ThetaStdErr), "C example line 2");
            var b = est.Bound(m, ws, x, 0.05);
            A.Eq("1.0702", F4(b.Bound), "bound as in the C example");
            A.Near(1 - Math.Exp(-2 * 10000 * 0.05 * 0.05), b.Confidence, 1e-12, "confidence 1 − exp(−2Km²)");
            A.Near(1 - Math.Exp(-2 * 500 * 0.02 * 0.02), RobustResult.BoundConfidence(500, 0.02), 1e-15, "BoundConfidence");
            A.True(double.IsNaN(RobustResult.BoundConfidence(500, 0)), "m = 0 → NaN");

            // Reseeding replays the stream; the same seed gives the same bits.
            ws.Reseed(42);
            var again = est.Estimate(m, ws, x);
            A.Eq(e.Gamma, again.Gamma, "reseed replays");
            A.Eq(e.Theta, again.Theta, "reseed replays theta");
            ws.Reseed(43);
            A.True(est.Estimate(m, ws, x).Theta != e.Theta, "another seed, another estimate");

            // Batch: independent of the thread count.
            var pts = new[] { 40000.0, 50000, 60000 }.SelectMany(inc => s.Encode(new[] { inc, -7, 1, 30 })).ToArray();
            double[] g1, t1, g2, t2;
            est.EstimateBatch(m, pts, 3, 7, 1, out g1, out t1);
            est.EstimateBatch(m, pts, 3, 7, 2, out g2, out t2);
            A.SameBits(g1, g2, "gamma, 1 vs 2 threads");
            A.SameBits(t1, t2, "theta, 1 vs 2 threads");
            A.True(g1[0] > g1[1] && g1[1] > g1[2], "richer applicants are invalidated less: " + string.Join(" ", g1));
            A.Throws<ArgumentException>(() => est.EstimateBatch(m, new double[10], 3, 7, 1, out g1, out t1), "short points");

            A.Status(Status.DimensionMismatch, () => est.Estimate(m, ws, new double[3]), "x length 3");
            A.Status(Status.InvalidArgument, () => new Estimator(noise, 1), "k = 1");
            A.Status(Status.InvalidArgument, () => Noise.Gaussian(s, double.NaN), "NaN variance");
            using (var u = Noise.OnColumns(NoiseModel.Uniform, new[] { 0, 1 }, new[] { 0.1, 0.1 }))
            using (var ue = new Estimator(u, 100))
            {
                A.Status(Status.InvalidArgument, () => ue.ExactRate(m, x), "exact rate under uniform noise");
                var ur = ue.Estimate(m, ws, x);
                A.True(ur.Gamma >= 0 && ur.Gamma <= 1, "uniform estimate is a rate");
            }
            A.Status(Status.InvalidArgument, () => Noise.OnColumns(NoiseModel.Gaussian, new[] { 1, 0 }, new[] { 0.1, 0.1 }), "unsorted columns");
        }
    }

    public static void T_robust_generators_results_and_json()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        using (var noise = Noise.Gaussian(s, 0.01))
        using (var config = new ConfigBuilder().Seed(7).Build())
        {
            using (var cf = RobustResult.Generate(s, m, noise, RobustMethod.Croco, config, Applicant))
            {
                var sum = cf.Summary();
                var raw = cf.Raw();
                // The C example's numbers (examples/c/robust.c).
                A.True(sum.Valid && !sum.TargetMet, "valid 1, target met 0");
                A.Eq("0.841", sum.Probability.ToString("F3", CultureInfo.InvariantCulture), "probability");
                A.SameBits(new double[] { 100000, -7, 1, 30 }, raw, "new row");
                A.Eq("0.0000 0.3752", F4(sum.Gamma) + " " + F4(sum.Bound), "rate and bound");
                A.Eq(sum.Probability, m.PredictRaw(s, raw).Probability, "probability of the new row");
                A.SameBits(s.Encode(raw), cf.Encoded(), "encoded = encode(raw)");
                var json = cf.ToJson(s, m);
                A.True(json.Contains("\"format\": \"cfx-result\"") && json.Contains(m.Fingerprint()) && json.Contains(s.Fingerprint()),
                    "versioned JSON with fingerprints: " + json.Substring(0, Math.Min(300, json.Length)));
                using (var again = RobustResult.Generate(s, m, noise, RobustMethod.Croco, config, Applicant))
                    A.Eq(json, again.ToJson(s, m), "same seed, same JSON bytes");
            }
            foreach (var method in new[] { RobustMethod.Wachter, RobustMethod.Probe })
                using (var cf = RobustResult.Generate(s, m, noise, method, null, Applicant))
                {
                    var sum = cf.Summary();
                    A.True(sum.Valid, method + " gives a valid counterfactual");
                    A.Eq(sum.Valid, m.PredictRaw(s, cf.Raw()).Accepted, method + ": validity = model decision");
                    A.Eq(Applicant[3], cf.Raw()[3], method + ": immutable age unchanged");
                }
            A.Status(Status.DimensionMismatch, () => RobustResult.Generate(s, m, noise, RobustMethod.Croco, config, new double[3]), "raw length 3");
            A.Status(Status.InvalidArgument, () => RobustResult.Generate(s, m, noise, (RobustMethod)9, config, Applicant), "method 9");
        }
    }

    public static void T_robust_objects_dispose_once_and_throw_after()
    {
        CfxHandle.Tracking = true;
        var s = Schema.FromJson(ToySchemaJson);
        var m = Model.FromJson(s, ToyModelJson);
        var n = Noise.Gaussian(s, 0.01);
        var e = new Estimator(n, 100);
        var w = new Workspace(m, 1);
        var r = RobustResult.Generate(s, m, n, RobustMethod.Wachter, null, Applicant);
        var serials = new[] { n.Handle.Serial, e.Handle.Serial, w.Handle.Serial, r.Handle.Serial };
        var x = s.Encode(Applicant);
        // The estimator keeps what it needs: freeing the noise first is fine.
        n.Dispose();
        A.True(e.Estimate(m, w, x).Gamma >= 0, "estimator outlives its noise handle");
        e.Dispose(); w.Dispose(); r.Dispose();
        e.Dispose(); w.Dispose(); r.Dispose(); n.Dispose();
        GcHard();
        foreach (var id in serials) A.Eq(1, CfxHandle.Releases[id], "freed exactly once");
        A.Throws<ObjectDisposedException>(() => new Estimator(n, 100), "disposed noise");
        A.Throws<ObjectDisposedException>(() => e.ExactRate(m, x), "disposed estimator");
        A.Throws<ObjectDisposedException>(() => w.Reseed(1), "disposed workspace");
        A.Throws<ObjectDisposedException>(() => r.Summary(), "disposed result");
        using (var live = Noise.Gaussian(s, 0.01))
        using (var le = new Estimator(live, 100))
            A.Throws<ObjectDisposedException>(() => le.Estimate(m, w, x), "disposed workspace argument");
        m.Dispose();
        s.Dispose();
    }
}
