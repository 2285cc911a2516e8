// The advice ledger and the re-validation of issued advice against a new model (issue 28):
// cfx_ledger_record_from_coherent_result(_at), cfx_revalidate_record, cfx_revalidate_ledger,
// cfx_deployment_report_to_json/_to_html/_write_html.
using System;
using System.IO;

namespace Cfx
{
    /// <summary>
    /// The advice ledger: one issued piece of advice as one JSON line ("format": "cfx-ledger",
    /// version 1) with the applicant's row, the advised row, its cost and the fingerprints of the
    /// schema and model it was issued under.
    /// </summary>
    public static class LedgerRecord
    {
        /// <summary>
        /// The ledger line of the optimal counterfactual of <paramref name="result"/> (which knows its
        /// schema and model). <paramref name="issued"/> (an opaque date), <paramref name="group"/> (a
        /// label for the report's breakdown) and <paramref name="robust"/> (the same applicant's
        /// result under ConfigBuilder.RobustAdvice, kept as the robust version) may be null. A
        /// result without a counterfactual throws CfxException NOT_FOUND. Given <paramref
        /// name="index"/>, the line of counterfactual <paramref name="index"/> of a diverse result
        /// (Coherent.ExplainDiverse) instead: id "&lt;id&gt;/&lt;index&gt;", kind "explain" for 0 and
        /// "diverse" for the others; an index at or beyond Count throws CfxException NOT_FOUND.
        /// </summary>
        public static string FromResult(CoherentResult result, string id, string issued = null, string group = null,
            CoherentResult robust = null, int? index = null)
        {
            if (result == null) throw new ArgumentNullException("result");
            if (id == null) throw new ArgumentNullException("id");
            var r = result.Handle;
            var rr = robust != null ? robust.Handle : new CoherentResultHandle();
            byte[] i = Utf8.Encode(id), d = Utf8.Encode(issued), g = Utf8.Encode(group);
            if (index.HasValue)
            {
                var k = Call.Size(index.Value, "index");
                return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                    Native.cfx_ledger_record_from_coherent_result_at(r, k, rr, i, d, g, b, c, out n));
            }
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_ledger_record_from_coherent_result(r, rr, i, d, g, b, c, out n));
        }

        /// <summary>
        /// The ledger line of waiting advice (kind "waiting": the advised row is the row after
        /// waiting and moving). A WaitingAdvice without advice throws CfxException NOT_FOUND.
        /// </summary>
        public static string FromAdvice(WaitingAdvice advice, string id, string issued = null, string group = null)
        {
            if (advice == null) throw new ArgumentNullException("advice");
            if (id == null) throw new ArgumentNullException("id");
            var a = advice.Handle;
            byte[] i = Utf8.Encode(id), d = Utf8.Encode(issued), g = Utf8.Encode(group);
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_ledger_record_from_waiting_advice(a, i, d, g, b, c, out n));
        }

        /// <summary>
        /// Keeps a portfolio run's answers (Portfolio.Explain) as the ledger file <paramref
        /// name="ledger"/>: one line per declined applicant with a counterfactual (kind "explain"),
        /// the applicant's row read from the run's input <paramref name="csv"/>, the advice from its
        /// output <paramref name="explanations"/>, both read in lockstep. <paramref name="schema"/>,
        /// <paramref name="model"/> and <paramref name="ignoreColumns"/> must be the run's. The id is
        /// the <paramref name="idColumn"/> cell (null: "row-&lt;k&gt;"), the group the <paramref
        /// name="groupColumn"/> cell (null: none), <paramref name="issued"/> every record's issue
        /// text. <paramref name="config"/> may be null, or the run's configuration: when it sets
        /// robust advice (ConfigBuilder.RobustAdvice, RobustBox), its target becomes the
        /// "robustness" of every "robust" record (a line whose counterfactual carries its
        /// invalidation_rate): sigma2, invalidation_target, and box_kind when not the reals (the
        /// library reads it from the configuration's JSON); the run's lines do not carry it, so without the
        /// configuration those records have none. Returns the number of records written. Files
        /// that are not one run's input and output under the model throw CfxException DATA_ERROR
        /// and leave no ledger.
        /// </summary>
        public static long FromPortfolio(Schema schema, Model model, string csv, string explanations, string ledger,
            string[] ignoreColumns = null, string idColumn = null, string groupColumn = null, string issued = null,
            Config config = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (csv == null) throw new ArgumentNullException("csv");
            if (explanations == null) throw new ArgumentNullException("explanations");
            if (ledger == null) throw new ArgumentNullException("ledger");
            var o = new System.Text.StringBuilder("{\"ignore_columns\":[");
            var ignore = ignoreColumns ?? new string[0];
            for (int k = 0; k < ignore.Length; k++)
            {
                if (k > 0) o.Append(',');
                o.Append(Json(ignore[k] ?? throw new ArgumentNullException("ignoreColumns")));
            }
            o.Append(']');
            if (idColumn != null) o.Append(",\"id_column\":").Append(Json(idColumn));
            if (groupColumn != null) o.Append(",\"group_column\":").Append(Json(groupColumn));
            if (issued != null) o.Append(",\"issued\":").Append(Json(issued));
            // The configuration's own JSON: the library reads the robustness target from it.
            if (config != null) o.Append(",\"config\":").Append(config.ToJson());
            o.Append('}');
            UIntPtr records;
            Call.Check(Native.cfx_ledger_from_portfolio(schema.Handle, model.Handle, Utf8.Encode(csv),
                Utf8.Encode(explanations), Utf8.Encode(ledger), Utf8.Encode(o.ToString()), out records));
            return (long)records.ToUInt64();
        }

        /// <summary>
        /// The ledger line <paramref name="record"/> with its COPA-corrected version kept as
        /// "copa_advised" (Bui, Nguyen &amp; Nguyen 2022, §3): the advised row moved, inside what the
        /// applicant may change, so that it stays valid under more of the models <paramref
        /// name="uncertainty"/> suggests (Gelbrich radius <paramref name="rho"/>, perturbation limit
        /// <paramref name="delta"/>). <paramref name="schema"/> must be the one the record was issued
        /// under. A corrected row that breaks a rule of the schema for the applicant throws
        /// CfxException NOT_FOUND: no version is kept, the record stays as it was.
        /// </summary>
        public static string WithCopaVersion(Schema schema, Uncertainty uncertainty, string record,
            double rho = 0.01, double delta = 0.1)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (uncertainty == null) throw new ArgumentNullException("uncertainty");
            if (record == null) throw new ArgumentNullException("record");
            var s = schema.Handle;
            var u = uncertainty.Handle;
            byte[] r = Utf8.Encode(record);
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_ledger_record_add_copa_version(s, u, r, rho, delta, b, c, out n));
        }

        /// <summary>A JSON string literal of <paramref name="s"/>.</summary>
        private static string Json(string s)
        {
            var b = new System.Text.StringBuilder("\"");
            foreach (char c in s)
            {
                if (c == '"' || c == '\\') b.Append('\\').Append(c);
                else if (c < 0x20) b.Append("\\u").Append(((int)c).ToString("x4"));
                else b.Append(c);
            }
            return b.Append('"').ToString();
        }
    }

    /// <summary>
    /// Re-validating issued advice when the bank deploys a new model: a promise is kept when the
    /// new model accepts the advised row; a broken one comes with the exact engine's cheapest
    /// repair from the advised row (its cost is the extra cost of keeping the promise).
    /// </summary>
    public static class Revalidation
    {
        /// <summary>
        /// One ledger line re-validated against <paramref name="newModel"/>, as JSON ("status",
        /// "margin", "probability", "model_changed", and for a broken promise "repair",
        /// "extra_cost", "applicant_repair"). <paramref name="config"/> may be null.
        /// </summary>
        public static string Record(Schema schema, Model newModel, Config config, string record)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (newModel == null) throw new ArgumentNullException("newModel");
            if (record == null) throw new ArgumentNullException("record");
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            var s = schema.Handle;
            var m = newModel.Handle;
            var rec = Utf8.Encode(record);
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_revalidate_record(s, m, ch, rec, b, c, out n));
        }

        /// <summary>
        /// Streams the ledger file <paramref name="input"/> against <paramref name="newModel"/> into
        /// <paramref name="output"/>, one JSON line per record in input order, <paramref
        /// name="chunkRows"/> at a time (0 = 4096) on <paramref name="threads"/> threads (0 = all
        /// cores; the same bytes on any count). Returns the deployment report as JSON ("records",
        /// "kept", "broken", "broken_share", "errors", "repaired", "extra_cost",
        /// "features_behind_breaks", "robust_records", "robust_broken", "groups"). A ledger issued
        /// under another schema is refused before anything is written. Given <paramref
        /// name="htmlPath"/>, the report is also written there as one self-contained HTML page (the
        /// counts and SVG bar plots: broken share per group, extra cost, features behind the breaks,
        /// and issued against robust advice when the ledger holds some) headed <paramref
        /// name="title"/> (null = cfx's default title); an <paramref name="htmlPath"/> naming the ledger or
        /// the output is refused (CfxException INVALID_ARGUMENT). With ConfigBuilder.Resume(true) a killed run
        /// goes on from its partial file.
        /// </summary>
        public static string Ledger(Schema schema, Model newModel, Config config, string input, string output,
            int threads = 0, int chunkRows = 0, string htmlPath = null, string title = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (newModel == null) throw new ArgumentNullException("newModel");
            if (input == null) throw new ArgumentNullException("input");
            if (output == null) throw new ArgumentNullException("output");
            var t = Call.Size(threads, "threads");
            var k = Call.Size(chunkRows, "chunkRows");
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            DeploymentReportHandle r;
            int st = Native.cfx_revalidate_ledger(schema.Handle, newModel.Handle, ch, Utf8.Encode(input),
                Utf8.Encode(output), t, k, out r);
            using (var report = Call.Owned(st, r))
            {
                var json = Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                    Native.cfx_deployment_report_to_json(report, b, c, out n));
                if (htmlPath != null)
                {
                    // Written by the library, which never writes over the ledger or the output.
                    Call.Check(Native.cfx_deployment_report_write_html(report, Utf8.Encode(title), Utf8.Encode(htmlPath)));
                }
                return json;
            }
        }

        /// <summary>
        /// As <see cref="Ledger(Schema, Model, Config, string, string, int, int, string, string)"/>, also
        /// handing back the report's HTML page as text in <paramref name="html"/> (headed <paramref
        /// name="title"/>; null = cfx's default title), e.g. to attach to a message.
        /// </summary>
        public static string Ledger(Schema schema, Model newModel, Config config, string input, string output,
            out string html, int threads = 0, int chunkRows = 0, string title = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (newModel == null) throw new ArgumentNullException("newModel");
            if (input == null) throw new ArgumentNullException("input");
            if (output == null) throw new ArgumentNullException("output");
            var t = Call.Size(threads, "threads");
            var k = Call.Size(chunkRows, "chunkRows");
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            DeploymentReportHandle r;
            int st = Native.cfx_revalidate_ledger(schema.Handle, newModel.Handle, ch, Utf8.Encode(input),
                Utf8.Encode(output), t, k, out r);
            using (var report = Call.Owned(st, r))
            {
                var t8 = Utf8.Encode(title);
                html = Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                    Native.cfx_deployment_report_to_html(report, t8, b, c, out n));
                return Call.String((byte[] b, UIntPtr c, out UIntPtr n) =>
                    Native.cfx_deployment_report_to_json(report, b, c, out n));
            }
        }
    }
}
