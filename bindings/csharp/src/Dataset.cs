using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Cfx
{
    /// <summary>
    /// An immutable dataset (cfx_dataset): a schema, raw rows and labels
    /// (1 = favourable). Thread-safe.
    /// </summary>
    public sealed class Dataset : IDisposable
    {
        private readonly DatasetHandle h;

        internal Dataset(DatasetHandle handle) { h = handle; }

        internal DatasetHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.Dataset");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { h.Dispose(); }

        /// <summary>The Statlog German credit data; null path = the copy bundled with cfx (beside
        /// Cfx.dll in share/cfx, else where libcfx finds it).</summary>
        public static Dataset LoadGerman(string path = null)
        {
            CfxLibrary.EnsureCompatible();
            if (path == null) path = CfxLibrary.BundledFile("german_credit.csv");
            DatasetHandle d;
            int st = Native.cfx_dataset_load_german(Utf8.Encode(path), out d);
            return new Dataset(Call.Owned(st, d));
        }

        /// <summary>The FICO HELOC data; null path = heloc.csv in cfx's shared data folder.</summary>
        public static Dataset LoadHeloc(string path = null)
        {
            CfxLibrary.EnsureCompatible();
            DatasetHandle d;
            int st = Native.cfx_dataset_load_heloc(Utf8.Encode(path), out d);
            return new Dataset(Call.Owned(st, d));
        }

        /// <summary>The Taiwan credit-card default data; null path = taiwan.csv in cfx's shared data folder.</summary>
        public static Dataset LoadTaiwan(string path = null)
        {
            CfxLibrary.EnsureCompatible();
            DatasetHandle d;
            int st = Native.cfx_dataset_load_taiwan(Utf8.Encode(path), out d);
            return new Dataset(Call.Owned(st, d));
        }

        /// <summary>Reads a CSV with every schema feature (by name) and a label column
        /// <paramref name="target"/>; label 1 when the cell equals <paramref name="favourable"/>.</summary>
        public static Dataset FromCsv(Schema schema, string path, string target, string favourable)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (path == null) throw new ArgumentNullException("path");
            if (target == null) throw new ArgumentNullException("target");
            if (favourable == null) throw new ArgumentNullException("favourable");
            CfxLibrary.EnsureCompatible();
            DatasetHandle d;
            int st = Native.cfx_dataset_from_csv(schema.Handle, Utf8.Encode(path), Utf8.Encode(target),
                Utf8.Encode(favourable), out d);
            return new Dataset(Call.Owned(st, d));
        }

        /// <summary>Reads a CSV under <paramref name="schema"/> with the field
        /// <paramref name="delimiter"/> (an ASCII character such as ';', common in European
        /// credit files). Without a header the columns are, in order, the schema's features
        /// and then the label column <paramref name="target"/>.</summary>
        public static Dataset FromCsv(Schema schema, string path, string target, string favourable,
            char delimiter, bool hasHeader)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (path == null) throw new ArgumentNullException("path");
            if (target == null) throw new ArgumentNullException("target");
            if (favourable == null) throw new ArgumentNullException("favourable");
            if (delimiter > 127)
                throw new ArgumentException("the delimiter must be an ASCII character, got '" + delimiter + "'", "delimiter");
            CfxLibrary.EnsureCompatible();
            DatasetHandle d;
            int st = Native.cfx_dataset_from_csv_ex(schema.Handle, Utf8.Encode(path), Utf8.Encode(target),
                Utf8.Encode(favourable), (byte)delimiter, hasHeader ? 1 : 0, out d);
            return new Dataset(Call.Owned(st, d));
        }

        public int RowCount
        {
            get { UIntPtr n; Call.Check(Native.cfx_dataset_n_rows(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>A new schema: this dataset's schema with distance weights fitted on its rows
        /// (dispose it when done). A schema built in code or read from JSON has unit weights, which
        /// changes most answers; build the model and every method on this one.</summary>
        public Schema GetFittedSchema()
        {
            SchemaHandle s;
            int st = Native.cfx_dataset_fitted_schema(Handle, out s);
            return new Schema(Call.Owned(st, s));
        }

        /// <summary>Infers a schema from a CSV file and reads its rows under it; the schema
        /// (<see cref="GetSchema"/>) has distance weights fitted on the rows. A column is categorical
        /// when listed in <paramref name="categorical"/> or when a cell is not a number; columns in
        /// <paramref name="drop"/> are left out; special codes are given by the caller. Without a
        /// header the columns are named "column 1", "column 2", ….</summary>
        public static Dataset InferCsv(string path, string target, string favourable, char delimiter, bool hasHeader,
            IList<string> drop, IList<string> categorical, IList<SpecialCode> specialCodes)
        {
            return InferCsv(path, target, favourable, delimiter, hasHeader, drop, categorical, specialCodes, null);
        }

        /// <summary><see cref="InferCsv(string, string, string, char, bool, IList{string}, IList{string}, IList{SpecialCode})"/>
        /// with the advice rules the caller already knows: <paramref name="rulesJson"/> is null (every feature
        /// mutable in any direction) or a JSON object with the optional keys <c>actionability</c> (feature name →
        /// the schema's actionability object, e.g. <c>{"SEX": {"mutable": false}}</c>) and <c>waiting</c>
        /// (<c>{"max_months": 24, "cost_per_month": 0.01}</c>), as <c>cfx schema infer</c> takes them. A rule
        /// naming no feature: NotFound; rules that are not such an object: FormatError.</summary>
        public static Dataset InferCsv(string path, string target, string favourable, char delimiter, bool hasHeader,
            IList<string> drop, IList<string> categorical, IList<SpecialCode> specialCodes, string rulesJson)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (target == null) throw new ArgumentNullException("target");
            if (favourable == null) throw new ArgumentNullException("favourable");
            if (drop == null) throw new ArgumentNullException("drop");
            if (categorical == null) throw new ArgumentNullException("categorical");
            if (specialCodes == null) throw new ArgumentNullException("specialCodes");
            if (delimiter > 127)
                throw new ArgumentException("the delimiter must be an ASCII character, got '" + delimiter + "'", "delimiter");
            CfxLibrary.EnsureCompatible();
            int n = specialCodes.Count;
            var codes = new double[n];
            var labels = new string[n];
            var columns = new string[n];
            for (int i = 0; i < n; i++)
            {
                if (specialCodes[i] == null) throw new ArgumentNullException("specialCodes", "entry " + i + " is null");
                if (specialCodes[i].Label == null) throw new ArgumentNullException("specialCodes", "label " + i + " is null");
                codes[i] = specialCodes[i].Code;
                labels[i] = specialCodes[i].Label;
                columns[i] = specialCodes[i].Column;
            }
            using (var pd = new PinnedStrings(drop, false, "drop"))
            using (var pc = new PinnedStrings(categorical, false, "categorical"))
            using (var pl = new PinnedStrings(labels, false, "labels"))
            using (var pcol = new PinnedStrings(columns, true, "columns"))
            {
                DatasetHandle d;
                int st = rulesJson == null
                    ? Native.cfx_dataset_infer_csv(Utf8.Encode(path), Utf8.Encode(target), Utf8.Encode(favourable),
                        (byte)delimiter, hasHeader ? 1 : 0, pd.Pointers, (UIntPtr)drop.Count, pc.Pointers,
                        (UIntPtr)categorical.Count, codes, pl.Pointers, pcol.Pointers, (UIntPtr)n, out d)
                    : Native.cfx_dataset_infer_csv_with_rules(Utf8.Encode(path), Utf8.Encode(target),
                        Utf8.Encode(favourable), (byte)delimiter, hasHeader ? 1 : 0, pd.Pointers, (UIntPtr)drop.Count,
                        pc.Pointers, (UIntPtr)categorical.Count, codes, pl.Pointers, pcol.Pointers, (UIntPtr)n,
                        Utf8.Encode(rulesJson), out d);
                return new Dataset(Call.Owned(st, d));
            }
        }

        /// <summary>A new handle to the dataset's schema (dispose it when done).</summary>
        public Schema GetSchema()
        {
            SchemaHandle s;
            int st = Native.cfx_dataset_schema(Handle, out s);
            return new Schema(Call.Owned(st, s));
        }

        /// <summary>Raw row <paramref name="index"/> (NOT_FOUND when out of range).</summary>
        public double[] Row(int index)
        {
            var d = Handle;
            var i = Call.Size(index, "index");
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_dataset_row(d, i, b, c, out n), 64);
        }

        /// <summary>The label of row <paramref name="index"/>: 1 favourable, 0 otherwise.</summary>
        public double Label(int index)
        {
            double l;
            Call.Check(Native.cfx_dataset_label(Handle, Call.Size(index, "index"), out l));
            return l;
        }

        /// <summary>NUL-terminated UTF-8 copies of strings pinned for one call (null entries become
        /// NULL pointers when allowed).</summary>
        private sealed class PinnedStrings : IDisposable
        {
            private readonly GCHandle[] pins;
            internal readonly IntPtr[] Pointers;

            internal PinnedStrings(IList<string> values, bool nullsAllowed, string what)
            {
                pins = new GCHandle[values.Count];
                Pointers = new IntPtr[values.Count];
                try
                {
                    for (int i = 0; i < values.Count; i++)
                    {
                        if (values[i] == null)
                        {
                            if (!nullsAllowed) throw new ArgumentNullException(what, "entry " + i + " is null");
                            continue;
                        }
                        pins[i] = GCHandle.Alloc(Utf8.Encode(values[i]), GCHandleType.Pinned);
                        Pointers[i] = pins[i].AddrOfPinnedObject();
                    }
                }
                catch
                {
                    Dispose();
                    throw;
                }
            }

            public void Dispose()
            {
                for (int i = 0; i < pins.Length; i++) if (pins[i].IsAllocated) pins[i].Free();
            }
        }

        /// <summary>The fixed 70/30 split (row i is held out when i mod 10 ≥ 7); both are new datasets.</summary>
        public void HoldoutSplit(out Dataset train, out Dataset test)
        {
            DatasetHandle a, b;
            int st = Native.cfx_dataset_holdout_split(Handle, out a, out b);
            if (st != 0)
            {
                var e = Call.Error(st);
                if (a != null) a.Dispose();
                if (b != null) b.Dispose();
                throw e;
            }
            train = new Dataset(a);
            test = new Dataset(b);
        }
    }

    /// <summary>A special code declared for schema inference (<see cref="Dataset.InferCsv"/>): a cell
    /// holding <see cref="Code"/>, or the text <see cref="Label"/> itself (e.g. "NA"), is in this state.</summary>
    public sealed class SpecialCode
    {
        public double Code { get; private set; }
        public string Label { get; private set; }
        /// <summary>The column it applies to, or null for every numeric column where it occurs.</summary>
        public string Column { get; private set; }

        public SpecialCode(double code, string label, string column = null)
        {
            if (label == null) throw new ArgumentNullException("label");
            Code = code;
            Label = label;
            Column = column;
        }
    }
}
