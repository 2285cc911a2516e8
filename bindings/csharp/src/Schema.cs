using System;

namespace Cfx
{
    /// <summary>The actionability presets of the bundled datasets (cfx_schema_advice_preset).</summary>
    public enum AdvicePreset
    {
        /// <summary>German credit: age only by waiting; no move into "no checking account", "critical
        /// account", "unknown/ no savings account", "for free" housing; credit amount −50 %/+25 %,
        /// duration ±12 months.</summary>
        GermanCredit = 0,
        /// <summary>FICO HELOC: the month-counting features move only by waiting.</summary>
        Heloc = 1,
    }

    /// <summary>
    /// An immutable feature schema (cfx_schema). Thread-safe. Dispose frees it
    /// now; otherwise the GC frees it once, from its finalizer thread.
    /// Raw rows hold one value per feature (categorical = level index); encoded
    /// vectors are the model's input.
    /// </summary>
    public sealed class Schema : IDisposable
    {
        private readonly SchemaHandle h;

        internal Schema(SchemaHandle handle) { h = handle; }

        internal SchemaHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.Schema");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { h.Dispose(); }

        /// <summary>Reads and validates a schema from its JSON text.</summary>
        public static Schema FromJson(string json)
        {
            if (json == null) throw new ArgumentNullException("json");
            CfxLibrary.EnsureCompatible();
            SchemaHandle s;
            int st = Native.cfx_schema_from_json(Utf8.Encode(json), out s);
            return new Schema(Call.Owned(st, s));
        }

        public string ToJson()
        {
            var s = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_schema_to_json(s, b, c, out n));
        }

        /// <summary>The fingerprint of the canonical JSON, "fnv1a64:…".</summary>
        public string Fingerprint()
        {
            var s = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_schema_fingerprint(s, b, c, out n));
        }

        // The schema is immutable: its sizes are read once (−1 = not read yet).
        private int featureCount = -1, encodedDim = -1;

        /// <summary>The number of features (length of a raw row).</summary>
        public int FeatureCount
        {
            get
            {
                var h0 = Handle;
                if (featureCount < 0) { UIntPtr n; Call.Check(Native.cfx_schema_n_features(h0, out n)); featureCount = Call.ToInt(n); }
                return featureCount;
            }
        }

        /// <summary>The encoded dimension (length of a model input).</summary>
        public int EncodedDim
        {
            get
            {
                var h0 = Handle;
                if (encodedDim < 0) { UIntPtr n; Call.Check(Native.cfx_schema_encoded_dim(h0, out n)); encodedDim = Call.ToInt(n); }
                return encodedDim;
            }
        }

        public string FeatureName(int index)
        {
            var s = Handle;
            var i = Call.Size(index, "index");
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_schema_feature_name(s, i, b, c, out n));
        }

        public string[] FeatureNames()
        {
            int n = FeatureCount;
            var r = new string[n];
            for (int i = 0; i < n; i++) r[i] = FeatureName(i);
            return r;
        }

        /// <summary>The index of a feature by name; CfxException NOT_FOUND when absent.</summary>
        public int IndexOf(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            UIntPtr i;
            Call.Check(Native.cfx_schema_index_of(Handle, Utf8.Encode(name), out i));
            return Call.ToInt(i);
        }

        /// <summary>Encodes a raw row into the model's input space.</summary>
        public double[] Encode(double[] raw)
        {
            if (raw == null) throw new ArgumentNullException("raw");
            var s = Handle;
            int dim = EncodedDim;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_schema_encode(s, raw, (UIntPtr)raw.Length, b, c, out n), dim);
        }

        /// <summary>Decodes an encoded vector back into a raw row (INCOHERENT if it is not one).</summary>
        public double[] Decode(double[] x)
        {
            if (x == null) throw new ArgumentNullException("x");
            var s = Handle;
            int nf = FeatureCount;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_schema_decode(s, x, (UIntPtr)x.Length, b, c, out n), nf);
        }

        /// <summary>"name: old → new" lines, one per changed feature.</summary>
        public string DescribeChanges(double[] from, double[] to)
        {
            if (from == null) throw new ArgumentNullException("from");
            if (to == null) throw new ArgumentNullException("to");
            var s = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_schema_describe_changes(s, from, (UIntPtr)from.Length, to, (UIntPtr)to.Length, b, c, out n));
        }

        /// <summary>Which distance weights the schema carries: Unit for a schema built in code or read
        /// from JSON without weights, until <see cref="FitWeights(double[][])"/> or
        /// <see cref="Dataset.GetFittedSchema"/>.</summary>
        public WeightsKind WeightsKind
        {
            get
            {
                int k;
                Call.Check(Native.cfx_schema_weights_kind(Handle, out k));
                return (WeightsKind)k;
            }
        }

        /// <summary>This schema (of <see cref="Dataset.LoadGerman"/> or LoadHeloc) with the dataset's
        /// actionability preset for advice (issue #16): change limits, features that move only by
        /// waiting, forbidden moves, and a waiting action costing <paramref name="waitingCostPerMonth"/>
        /// per month. NOT_FOUND when the schema lacks a feature the preset names.</summary>
        public Schema WithAdvicePreset(AdvicePreset preset, double waitingCostPerMonth)
        {
            SchemaHandle o;
            int st = Native.cfx_schema_advice_preset(Handle, (int)preset, waitingCostPerMonth, out o);
            return new Schema(Call.Owned(st, o));
        }

        /// <summary>A new schema with distance weights fitted on raw rows (this one is unchanged).</summary>
        public Schema FitWeights(double[][] rows)
        {
            if (rows == null) throw new ArgumentNullException("rows");
            int nf = FeatureCount;
            var flat = new double[rows.Length * nf];
            for (int i = 0; i < rows.Length; i++)
            {
                if (rows[i] == null || rows[i].Length != nf)
                    throw new ArgumentException("every row must have " + nf + " values (row " + i + ")", "rows");
                Array.Copy(rows[i], 0, flat, i * nf, nf);
            }
            return FitWeights(flat, rows.Length, nf);
        }

        /// <summary>Row-major variant: <paramref name="rowMajor"/> holds nRows × nCols values.</summary>
        public Schema FitWeights(double[] rowMajor, int nRows, int nCols)
        {
            if (rowMajor == null) throw new ArgumentNullException("rowMajor");
            if (nRows < 0 || nCols < 0 || (long)nRows * nCols != rowMajor.Length)
                throw new ArgumentException("rowMajor must hold exactly nRows × nCols values");
            SchemaHandle o;
            int st = Native.cfx_schema_fit_weights(Handle, rowMajor, (UIntPtr)nRows, (UIntPtr)nCols, out o);
            return new Schema(Call.Owned(st, o));
        }
    }
}
