// Adverse-action notices: principal reasons and the exact engine's advice, consistent by construction.
using System;

namespace Cfx
{
    /// <summary>The adverse-action notice of a declined applicant (cfx_notice): the principal
    /// reasons, ranked against a reference population, and the exact engine's advice, each reason
    /// marked (the advice acts on it, immutable or time-driven, necessary). Immutable, thread-safe.</summary>
    public sealed class Notice : IDisposable
    {
        private readonly NoticeHandle h;
        internal Notice(NoticeHandle handle) { h = handle; }
        internal NoticeHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Notice"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>The notice of a declined applicant (raw row). <paramref name="reference"/> is the
        /// dataset the reasons are ranked against; <paramref name="config"/> may be null;
        /// <paramref name="optionsJson"/> is null or a JSON object with the optional keys max_reasons
        /// (4), reference ({"kind":"all_applicants"} or {"kind":"at_cutoff","band":b}),
        /// reason_table_path or reason_table (the bank's codes and statements), necessity (true),
        /// tree_shap, scorecard_baseline, mlp_max_features. An accepted applicant is refused
        /// (INVALID_ARGUMENT).</summary>
        public static Notice Explain(Schema schema, Model model, Dataset reference, Config config, double[] row,
            string optionsJson = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (reference == null) throw new ArgumentNullException("reference");
            if (row == null) throw new ArgumentNullException("row");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                NoticeHandle r;
                int st = Native.cfx_notice_explain(schema.Handle, model.Handle, reference.Handle, ch, row,
                    (UIntPtr)row.Length, Utf8.Encode(optionsJson), out r);
                return new Notice(Call.Owned(st, r));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }

        /// <summary>Notices for a whole book: one JSON line in <paramref name="output"/> per declined
        /// applicant of the CSV file <paramref name="input"/> ({"notice": {...}, "row": k}, or
        /// {"error": ..., "row": k}), each the notice <see cref="Explain"/> makes for that row. With
        /// <paramref name="ledger"/> (may be null) the notices' advice is also written as an advice
        /// ledger, each record carrying its notice's id, for re-validation. <paramref name="optionsJson"/>
        /// (may be null) takes the keys of Explain plus ignore_columns and id_column. Both files are
        /// replaced only once the whole book is done and may not be an input. Returns the number of
        /// lines written.</summary>
        public static long Book(Schema schema, Model model, Dataset reference, Config config, string input,
            string output, string ledger = null, string optionsJson = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (reference == null) throw new ArgumentNullException("reference");
            if (input == null) throw new ArgumentNullException("input");
            if (output == null) throw new ArgumentNullException("output");
            CfxLibrary.EnsureCompatible();
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                UIntPtr n;
                Call.Check(Native.cfx_notice_book(schema.Handle, model.Handle, reference.Handle, ch,
                    Utf8.Encode(input), Utf8.Encode(output), Utf8.Encode(ledger), Utf8.Encode(optionsJson), out n));
                return (long)n.ToUInt64();
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }

        /// <summary>Versioned JSON (kind "notice"): "result" is the notice itself.</summary>
        public string ToJson()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_notice_to_json(r, b, c, out n));
        }

        /// <summary>A printable HTML page: no script, no external resource, an inline SVG chart.</summary>
        public string ToHtml()
        {
            var r = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_notice_to_html(r, b, c, out n));
        }
    }
}
