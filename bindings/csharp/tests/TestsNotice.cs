// Tests of the adverse-action notice: one declined German applicant under the logistic model.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text.RegularExpressions;
using Cfx;

public static partial class Tests
{
    static List<string> AllMatches(string regex, string text)
    {
        var out_ = new List<string>();
        foreach (Match m in Regex.Matches(text, regex, RegexOptions.Singleline)) out_.Add(m.Groups[1].Value);
        return out_;
    }

    public static void T_notice_of_a_declined_german_applicant_json_and_html()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var m = Model.FitLinear(d, 1.0))
        {
            double[] declined = null, accepted = null;
            for (int i = 0; i < d.RowCount && (declined == null || accepted == null); i++)
            {
                var r = d.Row(i);
                if (m.PredictRaw(s, r).Accepted) { if (accepted == null) accepted = r; }
                else if (declined == null) declined = r;
            }
            var table = Path.Combine(Root, "examples/data/reasons/german_reasons.csv").Replace("\\", "\\\\");
            string json, html;
            using (var n = Notice.Explain(s, m, d, null, declined, "{\"reason_table_path\": \"" + table + "\"}"))
            {
                json = n.ToJson();
                html = n.ToHtml();
            }
            A.True(json.Contains("\"kind\": \"notice\""), "JSON kind");
            A.True(json.Contains("\"method\": \"linear_exact\""), "the linear method");
            // Every reason carries the table's statement (nothing else in a notice has one).
            var statements = AllMatches("\"statement\": \"([^\"]*)\"", json);
            A.True(statements.Count >= 1 && statements.Count <= 4, "1 to 4 reasons: " + statements.Count);
            // Negative contributions, ranked from the most adverse.
            var contributions = AllMatches("\"rank\": \\d+,\\s*\"feature\": \"[^\"]*\",.*?\"contribution\": ([-0-9.e]+)", json);
            A.Eq(statements.Count, contributions.Count, "one contribution per reason");
            for (int k = 0; k < contributions.Count; k++)
            {
                var c = double.Parse(contributions[k], CultureInfo.InvariantCulture);
                A.True(c < 0, "reason " + k + " lowers the score");
                if (k > 0) A.True(double.Parse(contributions[k - 1], CultureInfo.InvariantCulture) <= c, "ranked");
            }
            // The notice's score is the model's own score of the applicant.
            var score = double.Parse(AllMatches("\"score\": ([-0-9.e]+)", json)[0], CultureInfo.InvariantCulture);
            A.Near(m.PredictRaw(s, declined).Score, score, 1e-12, "score");
            A.True(html.IndexOf("<script", StringComparison.OrdinalIgnoreCase) < 0, "no script");
            foreach (var st in statements) A.True(html.Contains(st), "the HTML shows '" + st + "'");
            A.Status(Status.InvalidArgument, () => Notice.Explain(s, m, d, null, accepted), "an accepted applicant");
            A.Status(Status.FormatError, () => Notice.Explain(s, m, d, null, declined, "{\"max_reason\": 3}"), "unknown key");
        }
    }

    // A book of 40 German applicants: one line per declined applicant (the model's own decision,
    // row by row, is the oracle), each notice the one Notice.Explain makes for that row (same id),
    // and the ledger's records carry those ids.
    public static void T_notice_book_writes_one_notice_per_declined_applicant_and_its_ledger()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx-notice-book-cs-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            using (var d = Dataset.LoadGerman())
            using (var s = d.GetSchema())
            using (var m = Model.FitLinear(d, 1.0))
            {
                var input = GermanHead(dir, 40);
                var output = Path.Combine(dir, "notices.jsonl");
                var ledger = Path.Combine(dir, "ledger.jsonl");
                long written = Notice.Book(s, m, d, null, input, output, ledger,
                    "{\"ignore_columns\": [\"creditability\"], \"necessity\": false}");
                var got = File.ReadAllLines(output);
                A.Eq((long)got.Length, written, "lines written");
                var declined = new List<int>();
                for (int i = 0; i < 40; i++) if (!m.PredictRaw(s, d.Row(i)).Accepted) declined.Add(i);
                A.Eq(declined.Count, got.Length, "one line per declined applicant");
                var ledgerText = File.ReadAllText(ledger);
                for (int k = 0; k < got.Length; k++)
                {
                    A.True(got[k].EndsWith("\"row\":" + declined[k] + "}"), "row of line " + k);
                    string id;
                    using (var n = Notice.Explain(s, m, d, null, d.Row(declined[k]), "{\"necessity\": false}"))
                        id = AllMatches("\"id\": \"(fnv1a64:[0-9a-f]+)\"", n.ToJson())[0];
                    A.True(got[k].Contains("\"id\":\"" + id + "\""), "the notice of row " + declined[k]);
                    A.True(ledgerText.Contains("\"notice\":\"" + id + "\""), "the ledger names notice " + id);
                }
                A.Status(Status.InvalidArgument, () => Notice.Book(s, m, d, null, input, input), "output = input");
            }
        }
        finally
        {
            Directory.Delete(dir, true);
        }
    }
}
