// Tests of cfx_coherent_explain_batch, against examples/c/coherent_batch.c and the one-applicant call.
using System;
using System.Globalization;
using System.Linq;
using Cfx;

public static partial class Tests
{
    // coherent_batch.c's applicants: declined, already accepted, declined.
    static readonly double[][] BatchRows =
    {
        new double[] { 30000, -7, 1, 30 },
        new double[] { 95000, -7, 0, 30 },
        new double[] { 10000, 12, 2, 45 },
    };

    public static void T_coherent_batch_equals_the_one_applicant_call_as_in_the_C_example()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        {
            foreach (int threads in new[] { 1, 2 })
            {
                using (var config = new ConfigBuilder().Threads(threads).Build())
                using (var b = Coherent.ExplainBatch(s, m, config, BatchRows))
                {
                    A.Eq(3, b.Count, "3 applicants (C example)");
                    A.Eq(Status.InvalidArgument, b.StatusOf(1), "applicant 1 is already accepted");
                    A.True(b.Error(1).Contains("already accepted"), b.Error(1));
                    A.Status(Status.InvalidArgument, () => b.Result(1), "no result for applicant 1");
                    foreach (int i in new[] { 0, 2 })
                    {
                        A.Eq(Status.Ok, b.StatusOf(i), "applicant " + i + " explained");
                        A.Eq("", b.Error(i), "no error for applicant " + i);
                        using (var r = b.Result(i))
                        using (var one = Coherent.Explain(s, m, null, BatchRows[i]))
                        {
                            A.SameBits(one.Counterfactual(0), r.Counterfactual(0), "applicant " + i + " row = one-applicant call");
                            A.SameBits(new[] { one.Certificate(0).Cost }, new[] { r.Certificate(0).Cost }, "applicant " + i + " cost");
                            A.Eq(one.ToJson(), r.ToJson(), "applicant " + i + " JSON");
                        }
                    }
                    using (var r0 = b.Result(0))
                    {
                        A.SameBits(new double[] { 58334, -7, 1, 30 }, r0.Counterfactual(0), "applicant 0 row (C example)");
                        A.Eq("0.2833", F4(r0.Certificate(0).Cost), "applicant 0 cost (C example)");
                    }
                    using (var r2 = b.Result(2))
                        A.Eq("0.5188", F4(r2.Certificate(0).Cost), "applicant 2 cost (C example)");
                    A.Status(Status.NotFound, () => b.StatusOf(3), "applicant 3");
                    var json = b.ToJson();
                    A.True(json.Contains("\"kind\": \"coherent_batch\""), "JSON kind");
                    A.True(json.Contains("CFX_STATUS_INVALID_ARGUMENT"), "JSON has the refused applicant");
                }
            }
        }
    }

    public static void T_coherent_batch_results_outlive_it_and_bad_input_is_refused()
    {
        CfxHandle.Tracking = true;
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        {
            CoherentResult r;
            var b = Coherent.ExplainBatch(s, m, null, BatchRows);
            long serial = b.Handle.Serial;
            r = b.Result(0);
            b.Dispose();
            b.Dispose();
            A.Eq(1, CfxHandle.Releases[serial], "batch freed once");
            A.Throws<ObjectDisposedException>(() => { var n = b.Count; }, "disposed batch");
            A.Eq(1, r.Count, "the result outlives its batch");
            r.Dispose();
            using (var empty = Coherent.ExplainBatch(s, m, null, new double[0][]))
                A.Eq(0, empty.Count, "no applicants");
            A.Status(Status.InvalidArgument,
                () => Coherent.ExplainBatch(s, m, null, new[] { new[] { double.NaN, -7, 1, 30 } }), "NaN value");
            A.Throws<ArgumentException>(() => Coherent.ExplainBatch(s, m, null, new[] { new double[] { 1, 2 } }), "short row");
            A.Throws<ArgumentNullException>(() => Coherent.ExplainBatch(s, m, null, null), "null rows");
        }
    }
}
