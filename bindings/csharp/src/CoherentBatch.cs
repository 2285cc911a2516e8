// Many applicants in one call: cfx_coherent_explain_batch.
using System;

namespace Cfx
{
    public static partial class Coherent
    {
        /// <summary>
        /// The optimal coherent counterfactual of each raw row (each of the schema's feature count),
        /// solved config.Threads applicants at a time (default 1), one HiGHS thread each: applicant
        /// i's answer equals <see cref="Coherent.Explain"/> of row i. An applicant that cannot be
        /// explained has its own status in the batch instead of failing the call.
        /// <paramref name="config"/> may be null.
        /// </summary>
        public static CoherentBatch ExplainBatch(Schema schema, Model model, Config config, double[][] rows)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (rows == null) throw new ArgumentNullException("rows");
            int d = schema.FeatureCount;
            var flat = new double[checked(rows.Length * d)];
            for (int i = 0; i < rows.Length; i++)
            {
                if (rows[i] == null) throw new ArgumentNullException("rows", "row " + i + " is null");
                if (rows[i].Length != d)
                    throw new ArgumentException(string.Format("row {0} has {1} values, the schema {2}", i, rows[i].Length, d), "rows");
                Array.Copy(rows[i], 0, flat, i * d, d);
            }
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                CoherentBatchHandle b;
                int st = Native.cfx_coherent_explain_batch(schema.Handle, model.Handle, ch, flat, (UIntPtr)flat.Length,
                    (UIntPtr)rows.Length, out b);
                return new CoherentBatch(Call.Owned(st, b));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }
    }

    /// <summary>The explanations of many applicants, in input order (cfx_coherent_batch). Each has a
    /// status (Ok when explained) and, when explained, a <see cref="CoherentResult"/>. Immutable, thread-safe.</summary>
    public sealed class CoherentBatch : IDisposable
    {
        private readonly CoherentBatchHandle h;
        internal CoherentBatch(CoherentBatchHandle handle) { h = handle; }
        internal CoherentBatchHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.CoherentBatch"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>The number of applicants.</summary>
        public int Count
        {
            get { UIntPtr n; Call.Check(Native.cfx_coherent_batch_count(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>Ok when applicant <paramref name="i"/> was explained, else why not.</summary>
        public Status StatusOf(int i)
        {
            int st;
            Call.Check(Native.cfx_coherent_batch_status(Handle, Call.Size(i, "i"), out st));
            return (Status)st;
        }

        /// <summary>Why applicant <paramref name="i"/> was not explained ("" when it was).</summary>
        public string Error(int i)
        {
            var b = Handle;
            var k = Call.Size(i, "i");
            return Call.String((byte[] buf, UIntPtr c, out UIntPtr n) => Native.cfx_coherent_batch_error(b, k, buf, c, out n));
        }

        /// <summary>The result of applicant <paramref name="i"/>, owned by the caller (dispose it; it
        /// outlives the batch). CfxException with the applicant's status when it was not explained.</summary>
        public CoherentResult Result(int i)
        {
            CoherentResultHandle r;
            int st = Native.cfx_coherent_batch_result(Handle, Call.Size(i, "i"), out r);
            return new CoherentResult(Call.Owned(st, r));
        }

        /// <summary>Versioned JSON (kind "coherent_batch"): each applicant's status, error and explanation.</summary>
        public string ToJson()
        {
            var b = Handle;
            return Call.String((byte[] buf, UIntPtr c, out UIntPtr n) => Native.cfx_coherent_batch_to_json(b, buf, c, out n));
        }
    }
}
