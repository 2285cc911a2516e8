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
}
