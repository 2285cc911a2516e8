using System;

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

        /// <summary>The Statlog German credit data; null path = the copy bundled with cfx.</summary>
        public static Dataset LoadGerman(string path = null)
        {
            CfxLibrary.EnsureCompatible();
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
}
