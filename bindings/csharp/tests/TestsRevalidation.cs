// The advice ledger and its re-validation against a new model (issue 28). Oracles: the same model
// breaks nothing; a model whose intercept is lowered by 0.4 breaks promises issued near the old
// boundary, each repaired by a row the new model accepts; the streamed report's counts equal the
// per-record results.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Cfx;

public static partial class Tests
{
    static long JsonCount(string json, string key)
    {
        var m = Regex.Match(json, "\"" + key + "\":([0-9]+)");
        A.True(m.Success, key + " in " + json);
        return long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture);
    }

    public static void T_revalidation_of_a_ledger_counts_what_each_record_says()
    {
        var dir = TestDir("cfx-revalidate-cs");
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train))
            {
                var json = m.ToJson();
                var b = Regex.Match(json, "\"bias\"\\s*:\\s*(-?[0-9.eE+-]+)");
                A.True(b.Success, "bias in the model JSON");
                double bias = double.Parse(b.Groups[1].Value, CultureInfo.InvariantCulture);
                var shiftedJson = json.Substring(0, b.Groups[1].Index) + (bias - 0.4).ToString("R", CultureInfo.InvariantCulture)
                    + json.Substring(b.Groups[1].Index + b.Groups[1].Length);
                Config robust;
                using (var cb = new ConfigBuilder()) robust = cb.RobustAdvice(0.01, 0.2).Build();
                using (robust)
                using (var shifted = Model.FromJson(s, shiftedJson))
                {
                    var lines = new List<string>();
                    for (int i = 0; lines.Count < 6; i++)
                    {
                        var row = test.Row(i);
                        if (m.PredictRaw(s, row).Accepted) continue;
                        int k = lines.Count;
                        using (var r = Coherent.Explain(s, m, null, row))
                        {
                            CoherentResult rr = k % 3 == 0 ? Coherent.Explain(s, m, robust, row) : null;
                            lines.Add(LedgerRecord.FromResult(r, "app-" + k, "2026-12-02", k % 2 == 0 ? "even" : "odd", rr));
                            if (rr != null) rr.Dispose();
                        }
                    }
                    A.True(lines[0].Contains("\"model\":\"" + m.Fingerprint() + "\""), "the model's fingerprint");
                    A.True(lines[0].Contains("\"schema\":\"" + s.Fingerprint() + "\""), "the schema's fingerprint");
                    A.True(lines[0].Contains("\"robust_advised\""), "the robust version");
                    var ledger = Path.Combine(dir, "ledger.jsonl");
                    File.WriteAllLines(ledger, lines);
                    foreach (var pair in new[] { Tuple.Create(m, "same"), Tuple.Create(shifted, "shifted") })
                    {
                        var nm = pair.Item1;
                        int broken = 0, robustBroken = 0;
                        foreach (var line in lines)
                        {
                            var v = Revalidation.Record(s, nm, null, line);
                            if (v.Contains("\"status\":\"broken\""))
                            {
                                broken++;
                                var raw = Regex.Match(v, "\"repair\":\\{[^}]*\"raw\":\\[([^\\]]*)\\]");
                                A.True(raw.Success, "a repair in " + v);
                                var rrow = raw.Groups[1].Value.Split(',').Select(x => double.Parse(x, CultureInfo.InvariantCulture)).ToArray();
                                A.True(nm.PredictRaw(s, rrow).Accepted, "the repair is accepted by the new model");
                            }
                            else A.True(v.Contains("\"status\":\"kept\""), "kept: " + v);
                            if (v.Contains("\"robust_kept\":false")) robustBroken++;
                        }
                        var output = Path.Combine(dir, pair.Item2 + ".jsonl");
                        var report = Revalidation.Ledger(s, nm, null, ledger, output, 2, 4);
                        A.Eq((long)lines.Count, JsonCount(report, "records"), "records");
                        A.Eq((long)broken, JsonCount(report, "broken"), "broken");
                        A.Eq((long)(lines.Count - broken), JsonCount(report, "kept"), "kept");
                        A.Eq(2L, JsonCount(report, "robust_records"), "robust records");
                        A.Eq((long)robustBroken, JsonCount(report, "robust_broken"), "robust broken");
                        A.Eq(0L, JsonCount(report, "errors"), "errors");
                        // The same run with the HTML page: the same JSON; the page has the
                        // record count and four plots (the ledger holds robust advice).
                        var page = Path.Combine(dir, pair.Item2 + ".html");
                        A.Eq(report, Revalidation.Ledger(s, nm, null, ledger, output, 2, 4, page, "Refit <B>"), "the same report");
                        var html = File.ReadAllText(page);
                        A.True(html.Contains("<h1>Refit &lt;B&gt;</h1>"), "the escaped title");
                        A.True(html.Contains("<tr><th>promises re-validated</th><td>" + lines.Count + "</td></tr>"), "the record count");
                        A.True(html.Contains("<tr><th>broken</th><td>" + broken + " ("), "the broken count");
                        A.Eq(4, Regex.Matches(html, "<svg").Count, "four plots");
                        var streamed = File.ReadAllLines(output);
                        A.Eq(lines.Count, streamed.Length, "one line per record");
                        A.Eq(broken, streamed.Count(l => l.Contains("\"status\":\"broken\"")), "broken lines");
                        if (pair.Item2 == "same") A.Eq(0, broken, "the same model breaks nothing");
                        else A.True(broken > 0, "the lowered intercept breaks promises");
                    }
                    // The report names the models with the caller's labels beside their own fingerprints.
                    using (var labelConfig = new ConfigBuilder().ModelLabels("logistic 2025", "logistic 2026").Build())
                    {
                        var named = Revalidation.Ledger(s, shifted, labelConfig, ledger, Path.Combine(dir, "labelled.jsonl"), 1, 0);
                        A.True(named.Contains("\"new_model\":{\"fingerprint\":\"" + shifted.Fingerprint() + "\",\"label\":\"logistic 2026\""), named);
                        A.True(named.Contains("\"old_models\":[{\"fingerprint\":\"" + m.Fingerprint() + "\",\"label\":\"logistic 2025\""), named);
                    }
                    using (var lb = new ConfigBuilder())
                        A.True(A.Status(Status.InvalidArgument, () => lb.ModelLabels("", null), "an empty label").Message.Contains("old_label"), "names the label");
                    // Bad input: a status and a message.
                    var e = A.Throws<CfxException>(() => Revalidation.Record(s, m, null, "{not json"), "bad JSON");
                    A.Eq("CFX_STATUS_FORMAT_ERROR", e.StatusName, "bad JSON status");
                    var other = Regex.Replace(lines[0], "\"schema\":\"[^\"]*\"", "\"schema\":\"fnv1a64:0000000000000000\"");
                    e = A.Throws<CfxException>(() => Revalidation.Record(s, m, null, other), "another schema");
                    A.Eq("CFX_STATUS_INVALID_ARGUMENT", e.StatusName, "another schema's status");
                    A.True(e.Message.Contains("schema"), e.Message);
                    var bad = Path.Combine(dir, "other.jsonl");
                    File.WriteAllText(bad, other + "\n");
                    var refused = Path.Combine(dir, "refused.jsonl");
                    A.Throws<CfxException>(() => Revalidation.Ledger(s, m, null, bad, refused), "another schema's ledger");
                    A.True(!File.Exists(refused), "nothing written");
                    e = A.Throws<CfxException>(() => Revalidation.Ledger(s, m, null, Path.Combine(dir, "missing.jsonl"), refused), "a missing ledger");
                    A.Eq("CFX_STATUS_IO_ERROR", e.StatusName, "missing ledger status");
                    var never = Path.Combine(dir, "never.html");
                    e = A.Throws<CfxException>(() => Revalidation.Ledger(s, m, null, bad, refused, 1, 0, never), "another schema's ledger, with a page");
                    A.Eq("CFX_STATUS_INVALID_ARGUMENT", e.StatusName, "another schema's ledger status");
                    A.True(!File.Exists(never), "no page written");

                    // A diverse set, option by option. Oracle: the set's own rows and costs (the
                    // core's LedgerRecord::from_diverse); option 0 is the plain record under id "app-0/0".
                    var applicant = Regex.Match(lines[0], "\"applicant\":\\[([^\\]]*)\\]").Groups[1].Value
                        .Split(',').Select(x => double.Parse(x, CultureInfo.InvariantCulture)).ToArray();
                    var recs = new List<string>();
                    using (var r = Coherent.ExplainDiverse(s, m, null, applicant))
                    {
                        int n = r.Count;
                        A.True(n > 1, "a diverse set of " + n);
                        for (int k = 0; k < n; k++)
                        {
                            var rec = LedgerRecord.FromResult(r, "app-0", null, "north", null, k);
                            A.True(rec.Contains("\"id\":\"app-0/" + k + "\""), rec);
                            A.True(rec.Contains("\"kind\":\"" + (k == 0 ? "explain" : "diverse") + "\""), rec);
                            var advised = Regex.Match(rec, "\"advised\":\\[([^\\]]*)\\]").Groups[1].Value
                                .Split(',').Select(x => double.Parse(x, CultureInfo.InvariantCulture)).ToArray();
                            A.True(advised.SequenceEqual(r.Counterfactual(k)), "advised row " + k + ": " + rec);
                            var cost = double.Parse(Regex.Match(rec, "\"cost\":([^,}]*)").Groups[1].Value, CultureInfo.InvariantCulture);
                            A.True(cost == r.Certificate(k).Cost, "cost " + k + ": " + rec);
                            recs.Add(rec);
                        }
                        A.Eq(LedgerRecord.FromResult(r, "app-0/0", null, "north"), recs[0], "option 0 is the plain record");
                        e = A.Throws<CfxException>(() => LedgerRecord.FromResult(r, "app-0", index: n), "index out of range");
                        A.Eq("CFX_STATUS_NOT_FOUND", e.StatusName, "index out of range status");
                        A.True(e.Message.Contains("has " + n), e.Message);
                        A.Throws<ArgumentOutOfRangeException>(() => LedgerRecord.FromResult(r, "app-0", index: -1), "a negative index");
                    }
                    var diverse = Path.Combine(dir, "diverse.jsonl");
                    File.WriteAllLines(diverse, recs);
                    var dpage = Path.Combine(dir, "diverse.html");
                    var dreport = Revalidation.Ledger(s, m, null, diverse, Path.Combine(dir, "diverse-out.jsonl"), htmlPath: dpage);
                    A.Eq((long)recs.Count, JsonCount(dreport, "records"), "diverse records");
                    A.Eq(0L, JsonCount(dreport, "broken"), "the same model breaks no option");
                    var dhtml = File.ReadAllText(dpage);
                    A.Eq(3, Regex.Matches(dhtml, "<svg").Count, "three plots without robust advice");
                    A.True(dhtml.Contains("<tr><th>promises re-validated</th><td>" + recs.Count + "</td></tr>"), "the diverse record count");
                    // The page as text is the page written.
                    string pageText;
                    var again = Revalidation.Ledger(s, m, null, diverse, Path.Combine(dir, "diverse-out3.jsonl"), out pageText);
                    A.Eq(dhtml, pageText, "the page as text");
                    A.Eq((long)recs.Count, JsonCount(again, "records"), "records again");
                    // The page never goes over the ledger it was made of.
                    var before = File.ReadAllBytes(diverse);
                    var over = A.Status(Status.InvalidArgument, () => Revalidation.Ledger(s, m, null, diverse,
                        Path.Combine(dir, "diverse-out2.jsonl"), htmlPath: diverse), "html over the ledger");
                    A.True(over.NativeMessage.Contains(diverse), over.NativeMessage);
                    A.True(before.SequenceEqual(File.ReadAllBytes(diverse)), "the ledger intact");
                }
            }
        }
        Directory.Delete(dir, true);
    }

    public static void T_revalidation_records_waiting_advice_kept_by_its_model()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var preset = s.WithAdvicePreset(AdvicePreset.GermanCredit, 0.05))
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train))
            {
                int recorded = 0, seen = 0;
                for (int i = 0; seen < 3; i++)
                {
                    var row = test.Row(i);
                    if (m.PredictRaw(s, row).Accepted) continue;
                    seen++;
                    using (var a = Coherent.ExplainWithWaiting(preset, m, null, row))
                    {
                        if (!a.Found)
                        {
                            var e = A.Throws<CfxException>(() => LedgerRecord.FromAdvice(a, "w"), "no advice");
                            A.Eq("CFX_STATUS_NOT_FOUND", e.StatusName, "no advice status");
                            continue;
                        }
                        var rec = LedgerRecord.FromAdvice(a, "w", "2026-12-02");
                        A.True(rec.Contains("\"kind\":\"waiting\""), rec);
                        A.True(rec.Contains("\"schema\":\"" + preset.Fingerprint() + "\""), rec);
                        A.True(Revalidation.Record(preset, m, null, rec).Contains("\"status\":\"kept\""), "kept");
                        recorded++;
                    }
                }
                A.True(recorded > 0, "some waiting advice recorded");
            }
        }
    }

    /// A portfolio run on the first 120 German applicants (an application id and a branch before
    /// their columns) kept as a ledger: one record per declined applicant with advice, each with the
    /// advised row of its portfolio line, kept by the same model; files of another run are refused
    /// and leave no ledger; COPA versions leave the rest of the record as it was.
    public static void T_portfolio_lines_become_ledger_records_with_copa_versions()
    {
        var dir = TestDir("cfx-ledger-portfolio-cs");
        var german = File.ReadAllLines(GermanCsv);
        var branches = new[] { "north", "south", "" };
        var book = new List<string> { "application_id,branch," + german[0] };
        for (int k = 0; k < 120; k++) book.Add(string.Format(CultureInfo.InvariantCulture, "A{0:D4},{1},{2}", k, branches[k % 3], german[k + 1]));
        var csv = Path.Combine(dir, "book.csv");
        File.WriteAllLines(csv, book);
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train))
            using (var unc = Uncertainty.FromDataset(train, 50, 3))
            {
                var ignore = new[] { "creditability", "application_id", "branch" };
                var answers = Path.Combine(dir, "book.jsonl");
                var counts = Portfolio.Explain(s, m, null, csv, answers, ignore, 1);
                var ledger = Path.Combine(dir, "ledger.jsonl");
                long n = LedgerRecord.FromPortfolio(s, m, csv, answers, ledger, ignore, "application_id", "branch", "2026-12-02");
                A.Eq(counts.WithRecourse, n, "one record per declined applicant with advice");
                A.True(n >= 10, "records: " + n);
                var records = File.ReadAllLines(ledger);
                var advised = File.ReadAllLines(answers).Where(l => l.Contains("\"counterfactual\":{")).ToArray();
                A.Eq(advised.Length, records.Length, "records");
                for (int j = 0; j < records.Length; j++)
                {
                    int k = (int)JsonCount(advised[j], "row");
                    A.True(records[j].Contains(string.Format(CultureInfo.InvariantCulture, "\"id\":\"A{0:D4}\"", k)), records[j]);
                    A.Eq(branches[k % 3] != "", records[j].Contains("\"group\":\"" + branches[k % 3] + "\""), "group of " + k);
                    var raw = Regex.Match(advised[j], "\"raw\":(\\[[^\\]]*\\])").Groups[1].Value;
                    A.True(records[j].Contains("\"advised\":" + raw), "advised row of " + k);
                    A.True(records[j].Contains("\"kind\":\"explain\"") && records[j].Contains("\"issued\":\"2026-12-02\""), records[j]);
                }
                var report = Revalidation.Ledger(s, m, null, ledger, Path.Combine(dir, "out.jsonl"), 1, 0);
                A.Eq(n, JsonCount(report, "records"), "records re-validated");
                A.Eq(0L, JsonCount(report, "broken"), "the same model breaks nothing");

                var shortAnswers = Path.Combine(dir, "short.jsonl");
                File.WriteAllLines(shortAnswers, File.ReadAllLines(answers).Take(119));
                var other = Path.Combine(dir, "other.jsonl");
                var e = A.Status(Status.DataError, () => LedgerRecord.FromPortfolio(s, m, csv, shortAnswers, other, ignore), "a cancelled run");
                A.True(e.NativeMessage.Contains("explanations end"), e.NativeMessage);
                A.True(!File.Exists(other), "a refused conversion left a ledger");
                A.Status(Status.DataError, () => LedgerRecord.FromPortfolio(s, m, csv, answers, other), "columns the run ignored");

                int with = 0;
                foreach (var rec in records)
                {
                    string got;
                    try { got = LedgerRecord.WithCopaVersion(s, unc, rec, 0.01, 0.1); }
                    catch (CfxException x) { A.Eq(Status.NotFound, x.Status, x.Message); continue; }
                    with++;
                    A.True(got.Contains("\"copa_advised\":["), got);
                    A.Eq(rec, Regex.Replace(got, ",\"copa_advised\":\\[[^\\]]*\\]", ""), "the rest of the record is kept");
                    var v = Revalidation.Record(s, m, null, got);
                    A.True(Regex.IsMatch(v, "\"copa_kept\":(true|false)"), v);
                }
                A.True(with >= records.Length / 2, with + " of " + records.Length + " COPA versions");
                var otherSchema = Regex.Replace(records[0], "\"schema\":\"[^\"]*\"", "\"schema\":\"fnv1a64:0000000000000000\"");
                A.Status(Status.InvalidArgument, () => LedgerRecord.WithCopaVersion(s, unc, otherSchema), "another schema's record");
            }
        }
    }

    /// A robust portfolio run (the first 40 German applicants, robust advice σ² 0.01, γ 0.2) kept as a
    /// ledger with the run's configuration: every robust record carries the target the
    /// configuration's own JSON holds (the oracle); kept without it none does, and the records are
    /// otherwise the same.
    public static void T_robust_portfolio_records_carry_the_configs_target()
    {
        var dir = TestDir("cfx-ledger-robust-cs");
        var csv = GermanHead(dir, 40);
        using (var g = new GermanHoldout())
        using (var robust = new ConfigBuilder().RobustAdvice(0.01, 0.2).Build())
        {
            var s = g.Schema;
            var m = g.Linear;
            var ignore = new[] { "creditability" };
            var answers = Path.Combine(dir, "book.jsonl");
            Portfolio.Explain(s, m, robust, csv, answers, ignore, 1);
            var config = Regex.Replace(robust.ToJson(), "\\s", "");
            A.True(config.Contains("\"robust_advice\":{\"sigma2\":0.01,\"invalidation_target\":0.2}"), config);
            const string want = "\"robustness\":{\"sigma2\":0.01,\"invalidation_target\":0.2}";
            var with = Path.Combine(dir, "with.jsonl");
            var without = Path.Combine(dir, "without.jsonl");
            long n = LedgerRecord.FromPortfolio(s, m, csv, answers, with, ignore, config: robust);
            A.Eq(n, LedgerRecord.FromPortfolio(s, m, csv, answers, without, ignore), "the same records without the config");
            var recs = File.ReadAllLines(with);
            var bare = File.ReadAllLines(without);
            A.Eq(bare.Length, recs.Length, "records");
            int robustRecords = 0;
            for (int j = 0; j < recs.Length; j++)
            {
                bool isRobust = recs[j].Contains("\"kind\":\"robust\"");
                if (isRobust) robustRecords++;
                A.Eq(isRobust, recs[j].Contains(want), recs[j]);
                A.Eq(isRobust ? 1 : 0, Regex.Matches(recs[j], "\"robustness\"").Count, recs[j]);
                A.True(!bare[j].Contains("\"robustness\""), bare[j]);
                A.Eq(bare[j], recs[j].Replace("," + want, ""), "the rest of the record");
            }
            A.True(robustRecords >= 5, "robust records: " + robustRecords);
            // No robust advice: nothing; a box of reachable values is written (the reals are not).
            using (var plain = new ConfigBuilder().Seed(1).Build())
            using (var box = new ConfigBuilder().RobustAdvice(0.02, 0.1).RobustBox(RobustBox.ReachableValues).Build())
            {
                var other = Path.Combine(dir, "other.jsonl");
                LedgerRecord.FromPortfolio(s, m, csv, answers, other, ignore, config: plain);
                A.True(File.ReadAllLines(other).SequenceEqual(bare), "a config without robust advice adds nothing");
                LedgerRecord.FromPortfolio(s, m, csv, answers, other, ignore, config: box);
                const string boxWant = "\"robustness\":{\"sigma2\":0.02,\"invalidation_target\":0.1,\"box_kind\":\"reachable_values\"}";
                foreach (var r in File.ReadAllLines(other))
                    A.Eq(r.Contains("\"kind\":\"robust\""), r.Contains(boxWant), r);
            }
        }
    }
}
