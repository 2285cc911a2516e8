package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The advice ledger and its re-validation against a new model (issue 28). Oracles: the same model
 * breaks nothing; a model whose intercept is lowered by 0.4 breaks promises issued near the old boundary,
 * each with a repair the new model accepts; the streamed report's counts equal the
 * per-record results.
 */
class RevalidationTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static Model shifted;
    static Config robust;
    static List<String> lines = new ArrayList<>();
    static Path dir;
    static Path ledger;

    @BeforeAll
    static void issue() throws Exception {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        String json = model.toJson();
        Matcher b = Pattern.compile("\"bias\"\\s*:\\s*(-?[0-9.eE+-]+)").matcher(json);
        assertTrue(b.find(), json);
        double bias = Double.parseDouble(b.group(1));
        shifted = Model.fromJson(schema, json.substring(0, b.start(1)) + (bias - 0.4) + json.substring(b.end(1)));
        try (ConfigBuilder cb = new ConfigBuilder()) {
            robust = cb.robustAdvice(0.01, 0.2).build();
        }
        Dataset test = split.test();
        for (int i = 0; lines.size() < 6; i++) {
            double[] row = test.row(i);
            if (model.predictRaw(schema, row).accepted()) continue;
            int k = lines.size();
            try (CoherentResult r = Coherent.explain(schema, model, null, row);
                    CoherentResult rr = k % 3 == 0 ? Coherent.explain(schema, model, robust, row) : null) {
                lines.add(LedgerRecord.fromResult(r, "app-" + k, "2026-12-02", k % 2 == 0 ? "even" : "odd", rr));
            }
        }
        dir = Files.createTempDirectory("cfx-revalidate-java");
        ledger = dir.resolve("ledger.jsonl");
        Files.write(ledger, lines);
    }

    @AfterAll
    static void free() {
        robust.close();
        shifted.close();
        model.close();
        split.close();
        schema.close();
        german.close();
    }

    static long count(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":([0-9]+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void recordsCarryTheFingerprints() {
        String first = lines.get(0);
        assertTrue(first.contains("\"format\":\"cfx-ledger\""), first);
        assertTrue(first.contains("\"model\":\"" + model.fingerprint() + "\""), first);
        assertTrue(first.contains("\"schema\":\"" + schema.fingerprint() + "\""), first);
        assertTrue(first.contains("\"robust_advised\""), first);
        assertFalse(lines.get(1).contains("\"robust_advised\""));
    }

    void check(Model newModel, boolean same) throws Exception {
        int broken = 0;
        int robustBroken = 0;
        for (String line : lines) {
            String v = Revalidation.record(schema, newModel, null, line);
            if (v.contains("\"status\":\"broken\"")) {
                broken++;
                Matcher raw = Pattern.compile("\"repair\":\\{[^}]*\"raw\":\\[([^\\]]*)\\]").matcher(v);
                assertTrue(raw.find(), v);
                String[] parts = raw.group(1).split(",");
                double[] row = new double[parts.length];
                for (int j = 0; j < row.length; j++) row[j] = Double.parseDouble(parts[j]);
                assertTrue(newModel.predictRaw(schema, row).accepted(), v);
            } else {
                assertTrue(v.contains("\"status\":\"kept\""), v);
            }
            if (v.contains("\"robust_kept\":false")) robustBroken++;
        }
        Path out = dir.resolve(same ? "same.jsonl" : "shifted.jsonl");
        String report = Revalidation.ledger(schema, newModel, null, ledger.toString(), out.toString(), 2, 4);
        assertEquals(lines.size(), count(report, "records"), report);
        assertEquals(broken, count(report, "broken"), report);
        assertEquals(lines.size() - broken, count(report, "kept"), report);
        assertEquals(2, count(report, "robust_records"), report);
        assertEquals(robustBroken, count(report, "robust_broken"), report);
        assertEquals(0, count(report, "errors"), report);
        // The same run with the HTML page: the same JSON, a page with the record count and
        // four plots (the ledger holds robust advice).
        Path page = dir.resolve(same ? "same.html" : "shifted.html");
        String again = Revalidation.ledger(
                schema, newModel, null, ledger.toString(), out.toString(), 2, 4, page, "Refit <B>");
        assertEquals(report, again);
        String html = Files.readString(page);
        assertTrue(html.contains("<h1>Refit &lt;B&gt;</h1>"), html);
        assertTrue(html.contains("<tr><th>promises re-validated</th><td>" + lines.size() + "</td></tr>"), html);
        assertTrue(html.contains("<tr><th>broken</th><td>" + broken + " ("), html);
        assertEquals(4, html.split("<svg", -1).length - 1, html);
        List<String> streamed = Files.readAllLines(out);
        assertEquals(lines.size(), streamed.size());
        assertEquals(broken, streamed.stream().filter(l -> l.contains("\"status\":\"broken\"")).count());
        if (same) {
            assertEquals(0, broken);
        } else {
            assertTrue(broken > 0, report);
        }
    }

    @Test
    void theSameModelBreaksNothing() throws Exception {
        check(model, true);
    }

    @Test
    void aLoweredInterceptBreaksPromisesAndTheReportCountsThem() throws Exception {
        check(shifted, false);
    }

    /** The report names the models with the caller's labels beside their own fingerprints. */
    @Test
    void theReportNamesTheModelsWithTheCallersLabels() throws Exception {
        Path out = dir.resolve("labelled.jsonl");
        String report;
        try (ConfigBuilder cb = new ConfigBuilder();
                Config labels = cb.modelLabels("logistic 2025", "logistic 2026").build()) {
            report = Revalidation.ledger(schema, shifted, labels, ledger.toString(), out.toString(), 1, 0);
        }
        assertTrue(report.contains("\"new_model\":{\"fingerprint\":\"" + shifted.fingerprint()
                + "\",\"label\":\"logistic 2026\""), report);
        assertTrue(report.contains("\"old_models\":[{\"fingerprint\":\"" + model.fingerprint()
                + "\",\"label\":\"logistic 2025\""), report);
        try (ConfigBuilder cb = new ConfigBuilder()) {
            CfxException e = assertThrows(CfxException.class, () -> cb.modelLabels(null, ""));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
            assertTrue(e.getMessage().contains("new_label"), e.getMessage());
        }
    }

    @Test
    void badInputThrowsWithAMessage() throws Exception {
        CfxException e = assertThrows(CfxException.class, () -> Revalidation.record(schema, model, null, "{not json"));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        String other = lines.get(0).replaceFirst("\"schema\":\"[^\"]*\"", "\"schema\":\"fnv1a64:0000000000000000\"");
        e = assertThrows(CfxException.class, () -> Revalidation.record(schema, model, null, other));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertTrue(e.getMessage().contains("schema"), e.getMessage());
        Path bad = dir.resolve("other.jsonl");
        Files.writeString(bad, other + "\n");
        Path out = dir.resolve("refused.jsonl");
        e = assertThrows(CfxException.class,
                () -> Revalidation.ledger(schema, model, null, bad.toString(), out.toString(), 1, 0));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertFalse(Files.exists(out));
        e = assertThrows(CfxException.class, () -> Revalidation.ledger(
                schema, model, null, dir.resolve("missing.jsonl").toString(), out.toString(), 1, 0));
        assertEquals(Status.IO_ERROR, e.statusCode());
        assertThrows(NullPointerException.class, () -> Revalidation.record(schema, model, null, null));
        Path page = dir.resolve("never.html");
        e = assertThrows(CfxException.class, () -> Revalidation.ledger(
                schema, model, null, bad.toString(), out.toString(), 1, 0, page, null));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertFalse(Files.exists(page));
        assertThrows(NullPointerException.class, () -> Revalidation.ledger(
                schema, model, null, ledger.toString(), out.toString(), 1, 0, null, null));
    }

    static double[] numbers(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\\[([^\\]]*)\\]").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        String[] parts = m.group(1).split(",");
        double[] row = new double[parts.length];
        for (int j = 0; j < row.length; j++) row[j] = Double.parseDouble(parts[j]);
        return row;
    }

    @Test
    void diverseSetsAreRecordedOptionByOptionAndReportedAsHtml() throws Exception {
        double[] applicant = numbers(lines.get(0), "applicant");
        List<String> recs = new ArrayList<>();
        try (CoherentResult r = Coherent.explainDiverse(schema, model, null, applicant)) {
            int n = r.count();
            assertTrue(n > 1, "a diverse set of " + n);
            for (int k = 0; k < n; k++) {
                String rec = LedgerRecord.fromResult(r, k, "app-0", null, "north", null);
                // Oracle: the set's own rows and costs (the core's LedgerRecord::from_diverse).
                assertTrue(rec.contains("\"id\":\"app-0/" + k + "\""), rec);
                assertTrue(rec.contains("\"kind\":\"" + (k == 0 ? "explain" : "diverse") + "\""), rec);
                assertTrue(rec.contains("\"group\":\"north\""), rec);
                assertArrayEquals(r.counterfactual(k), numbers(rec, "advised"), rec);
                assertArrayEquals(applicant, numbers(rec, "applicant"), rec);
                Matcher cost = Pattern.compile("\"cost\":([^,}]*)").matcher(rec);
                assertTrue(cost.find(), rec);
                assertEquals(r.certificate(k).cost(), Double.parseDouble(cost.group(1)), rec);
                recs.add(rec);
            }
            assertEquals(LedgerRecord.fromResult(r, "app-0/0", null, "north", null), recs.get(0));
            CfxException e = assertThrows(CfxException.class,
                    () -> LedgerRecord.fromResult(r, n, "app-0", null, null, null));
            assertEquals(Status.NOT_FOUND, e.statusCode());
            assertTrue(e.getMessage().contains("has " + n), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class,
                    () -> LedgerRecord.fromResult(r, -1, "app-0", null, null, null));
        }
        Path diverse = dir.resolve("diverse.jsonl");
        Files.write(diverse, recs);
        Path page = dir.resolve("diverse.html");
        String report = Revalidation.ledger(
                schema, model, null, diverse.toString(), dir.resolve("diverse-out.jsonl").toString(), 1, 0, page, null);
        assertEquals(recs.size(), count(report, "records"), report);
        assertEquals(0, count(report, "broken"), report);
        String html = Files.readString(page);
        // Three plots: no robust advice in this ledger.
        assertEquals(3, html.split("<svg", -1).length - 1, html);
        assertTrue(html.contains("<tr><th>promises re-validated</th><td>" + recs.size() + "</td></tr>"), html);
        // The page as text is the page written.
        Revalidation.ReportAndPage both = Revalidation.ledgerWithPage(
                schema, model, null, diverse.toString(), dir.resolve("diverse-out3.jsonl").toString(), 1, 0, null);
        assertEquals(html, both.html());
        assertEquals(recs.size(), count(both.json(), "records"), both.json());
        // The page never goes over the ledger it was made of.
        byte[] before = Files.readAllBytes(diverse);
        CfxException e = assertThrows(CfxException.class, () -> Revalidation.ledger(
                schema, model, null, diverse.toString(), dir.resolve("diverse-out2.jsonl").toString(), 1, 0, diverse, null));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertTrue(e.getMessage().contains(diverse.toString()), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(diverse));
    }

    @Test
    void waitingAdviceIsRecordedAndKeptByItsModel() {
        int recorded = 0;
        try (Schema preset = schema.advicePreset(AdvicePreset.GERMAN_CREDIT, 0.05)) {
            for (int k = 0; k < 3; k++) {
                Matcher m = Pattern.compile("\"applicant\":\\[([^\\]]*)\\]").matcher(lines.get(k));
                assertTrue(m.find(), lines.get(k));
                String[] parts = m.group(1).split(",");
                double[] row = new double[parts.length];
                for (int j = 0; j < row.length; j++) row[j] = Double.parseDouble(parts[j]);
                try (WaitingAdvice a = Coherent.explainWithWaiting(preset, model, null, row)) {
                    if (!a.found()) {
                        CfxException e = assertThrows(CfxException.class, () -> LedgerRecord.fromAdvice(a, "w", null, null));
                        assertEquals(Status.NOT_FOUND, e.statusCode());
                        continue;
                    }
                    String rec = LedgerRecord.fromAdvice(a, "w", "2026-12-02", null);
                    assertTrue(rec.contains("\"kind\":\"waiting\""), rec);
                    assertTrue(rec.contains("\"schema\":\"" + preset.fingerprint() + "\""), rec);
                    assertTrue(Revalidation.record(preset, model, null, rec).contains("\"status\":\"kept\""));
                    recorded++;
                }
            }
        }
        assertTrue(recorded > 0);
    }

    /**
     * A portfolio run on the first 120 German applicants (an application id and a branch before
     * their columns) kept as a ledger: one record per declined applicant with advice, each with the
     * advised row of its portfolio line, kept by the same model; files of another run are refused
     * and leave no ledger; COPA versions leave the rest of the record as it was.
     */
    @Test
    void portfolioLinesBecomeLedgerRecordsWithCopaVersions() throws Exception {
        List<String> german = Files.readAllLines(Path.of(TestData.germanPath()));
        String[] branches = {"north", "south", ""};
        List<String> book = new ArrayList<>();
        book.add("application_id,branch," + german.get(0));
        for (int k = 0; k < 120; k++) {
            book.add(String.format("A%04d,%s,%s", k, branches[k % 3], german.get(k + 1)));
        }
        Path csv = dir.resolve("book.csv");
        Files.write(csv, book);
        List<String> ignore = List.of("creditability", "application_id", "branch");
        Path answers = dir.resolve("book.jsonl");
        Portfolio.Counts counts = Portfolio.explain(schema, model, null, csv.toString(), answers.toString(), ignore, 1, null);
        Path out = dir.resolve("portfolio-ledger.jsonl");
        long n = LedgerRecord.fromPortfolio(
                schema, model, csv.toString(), answers.toString(), out.toString(), ignore, "application_id", "branch", "2026-12-02");
        assertEquals(counts.withRecourse(), n);
        assertTrue(n >= 10, "records: " + n);
        List<String> records = Files.readAllLines(out);
        List<String> advised = new ArrayList<>();
        for (String l : Files.readAllLines(answers)) if (l.contains("\"counterfactual\":{")) advised.add(l);
        assertEquals(advised.size(), records.size());
        for (int j = 0; j < records.size(); j++) {
            String rec = records.get(j);
            int k = (int) count(advised.get(j), "row");
            assertTrue(rec.contains(String.format("\"id\":\"A%04d\"", k)), rec);
            assertEquals(!branches[k % 3].isEmpty(), rec.contains("\"group\":\"" + branches[k % 3] + "\""), rec);
            assertArrayEquals(numbers(advised.get(j), "raw"), numbers(rec, "advised"), rec);
            assertTrue(rec.contains("\"kind\":\"explain\"") && rec.contains("\"issued\":\"2026-12-02\""), rec);
        }
        String report = Revalidation.ledger(schema, model, null, out.toString(), dir.resolve("p-out.jsonl").toString(), 1, 0);
        assertEquals(n, count(report, "records"));
        assertEquals(0, count(report, "broken"));

        Path shortAnswers = dir.resolve("short.jsonl");
        Files.write(shortAnswers, Files.readAllLines(answers).subList(0, 119));
        Path other = dir.resolve("other-ledger.jsonl");
        CfxException e = assertThrows(CfxException.class, () -> LedgerRecord.fromPortfolio(
                schema, model, csv.toString(), shortAnswers.toString(), other.toString(), ignore, null, null, null));
        assertEquals(Status.DATA_ERROR, e.statusCode());
        assertTrue(e.getMessage().contains("explanations end"), e.getMessage());
        assertFalse(Files.exists(other));

        try (Uncertainty unc = Uncertainty.fromDataset(split.train(), 50, 3)) {
            int with = 0;
            for (String rec : records) {
                String got;
                try {
                    got = LedgerRecord.withCopaVersion(schema, unc, rec, 0.01, 0.1);
                } catch (CfxException x) {
                    assertEquals(Status.NOT_FOUND, x.statusCode(), x.getMessage());
                    continue;
                }
                with++;
                assertTrue(got.contains("\"copa_advised\":["), got);
                assertEquals(rec, got.replaceFirst(",\"copa_advised\":\\[[^\\]]*\\]", ""));
                assertTrue(Revalidation.record(schema, model, null, got).matches(".*\"copa_kept\":(true|false).*"));
            }
            assertTrue(with >= records.size() / 2, with + " of " + records.size());
            String otherSchema = records.get(0).replaceFirst("\"schema\":\"[^\"]*\"", "\"schema\":\"fnv1a64:0000000000000000\"");
            e = assertThrows(CfxException.class, () -> LedgerRecord.withCopaVersion(schema, unc, otherSchema, 0.01, 0.1));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        }
    }

    /**
     * A robust portfolio run (the first 40 German applicants, robust advice σ² 0.01, γ 0.2) kept as
     * a ledger with the run's configuration: every robust record carries the target the
     * configuration's own JSON holds (the oracle); kept without it, none does, and the records are
     * otherwise the same.
     */
    @Test
    void robustPortfolioRecordsCarryTheConfigsTarget() throws Exception {
        List<String> german = Files.readAllLines(Path.of(TestData.germanPath()));
        Path csv = dir.resolve("robust-book.csv");
        Files.write(csv, german.subList(0, 41));
        List<String> ignore = List.of("creditability");
        Path answers = dir.resolve("robust-book.jsonl");
        Portfolio.explain(schema, model, robust, csv.toString(), answers.toString(), ignore, 1, null);
        String config = robust.toJson().replaceAll("\\s", "");
        assertTrue(config.contains("\"robust_advice\":{\"sigma2\":0.01,\"invalidation_target\":0.2}"), config);
        String want = "\"robustness\":{\"sigma2\":0.01,\"invalidation_target\":0.2}";
        Path with = dir.resolve("robust-with.jsonl");
        Path without = dir.resolve("robust-without.jsonl");
        long n = LedgerRecord.fromPortfolio(
                schema, model, csv.toString(), answers.toString(), with.toString(), ignore, null, null, null, robust);
        assertEquals(n, LedgerRecord.fromPortfolio(
                schema, model, csv.toString(), answers.toString(), without.toString(), ignore, null, null, null));
        List<String> recs = Files.readAllLines(with);
        List<String> bare = Files.readAllLines(without);
        assertEquals(bare.size(), recs.size());
        int robustRecords = 0;
        for (int j = 0; j < recs.size(); j++) {
            String rec = recs.get(j);
            boolean isRobust = rec.contains("\"kind\":\"robust\"");
            if (isRobust) robustRecords++;
            assertEquals(isRobust, rec.contains(want), rec);
            assertEquals(isRobust ? 1 : 0, rec.split("\"robustness\"", -1).length - 1, rec);
            assertFalse(bare.get(j).contains("\"robustness\""), bare.get(j));
            assertEquals(bare.get(j), rec.replace("," + want, ""));
        }
        assertTrue(robustRecords >= 5, "robust records: " + robustRecords);
        // No robust advice: nothing; a box of reachable values is written (the reals are not).
        Path other = dir.resolve("robust-other.jsonl");
        try (Config plain = new ConfigBuilder().seed(1).build();
                Config box = new ConfigBuilder().robustAdvice(0.02, 0.1).robustBox(RobustBox.REACHABLE_VALUES).build()) {
            LedgerRecord.fromPortfolio(
                    schema, model, csv.toString(), answers.toString(), other.toString(), ignore, null, null, null, plain);
            assertEquals(bare, Files.readAllLines(other));
            LedgerRecord.fromPortfolio(
                    schema, model, csv.toString(), answers.toString(), other.toString(), ignore, null, null, null, box);
            String boxWant = "\"robustness\":{\"sigma2\":0.02,\"invalidation_target\":0.1,\"box_kind\":\"reachable_values\"}";
            List<String> got = Files.readAllLines(other);
            for (int j = 0; j < got.size(); j++) {
                assertEquals(got.get(j).contains("\"kind\":\"robust\""), got.get(j).contains(boxWant), got.get(j));
            }
        }
    }
}
