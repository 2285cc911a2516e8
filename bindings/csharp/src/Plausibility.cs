// Plausibility flags: cfx_plausibility_fit / _assess / _advise_waits.
using System;

namespace Cfx
{
    /// <summary>Per feature: -1 unchanged, 0 plausible, 1 implausible; and how far outside the range
    /// (feature units; 0 inside or for a state, NaN when unchanged).</summary>
    public sealed class PlausibilityAssessment
    {
        public int[] Flags { get; private set; }
        public double[] Distances { get; private set; }
        internal PlausibilityAssessment(int[] flags, double[] distances) { Flags = flags; Distances = distances; }
        /// <summary>Whether any changed value is implausible.</summary>
        public bool AnyImplausible { get { return Array.IndexOf(Flags, 1) >= 0; } }
    }

    /// <summary>Plausible ranges (cfx_plausibility): per feature, the 1-99% range of the training data's
    /// accepted applicants and the shares of their states and levels. Immutable, thread-safe.</summary>
    public sealed class Plausibility : IDisposable
    {
        private readonly PlausibilityHandle h;
        private readonly int width;
        private Plausibility(PlausibilityHandle handle, int width) { h = handle; this.width = width; }
        internal PlausibilityHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Plausibility"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>Fits the ranges on raw training rows and their 0/1 labels (1 = accepted).</summary>
        public static Plausibility Fit(Schema schema, double[][] rows, double[] labels)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (rows == null) throw new ArgumentNullException("rows");
            if (labels == null) throw new ArgumentNullException("labels");
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
            PlausibilityHandle p;
            int st = Native.cfx_plausibility_fit(schema.Handle, flat, (UIntPtr)flat.Length, (UIntPtr)rows.Length,
                labels, (UIntPtr)labels.Length, out p);
            return new Plausibility(Call.Owned(st, p), d);
        }

        /// <summary>The flags of <paramref name="advice"/> against the applicant's raw row <paramref name="factual"/>.</summary>
        public PlausibilityAssessment Assess(double[] factual, double[] advice)
        {
            if (factual == null) throw new ArgumentNullException("factual");
            if (advice == null) throw new ArgumentNullException("advice");
            var flags = new int[width];
            var dist = new double[width];
            UIntPtr n;
            Call.Check(Native.cfx_plausibility_assess(Handle, factual, (UIntPtr)factual.Length, advice,
                (UIntPtr)advice.Length, flags, dist, (UIntPtr)width, out n));
            return new PlausibilityAssessment(flags, dist);
        }

        /// <summary>The schema these ranges were fitted for, with every contiguous feature that grows with
        /// time limited to waits that land it inside its plausible range (its advised range,
        /// <see cref="SchemaBuilder.SetTimeGrowthAdvisedRange"/>, set to the accepted applicants' 1-99% range):
        /// no method then advises a wait that moves a month counter to where accepted applicants are not. A
        /// feature with no accepted applicant in range keeps its own. A new schema, owned by the
        /// caller.</summary>
        public Schema AdviseWaits()
        {
            SchemaHandle o;
            int st = Native.cfx_plausibility_advise_waits(Handle, out o);
            return new Schema(Call.Owned(st, o));
        }
    }
}
