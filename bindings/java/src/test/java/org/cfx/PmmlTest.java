package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The PMML importer ({@code cfx_model_from_pmml_str} / {@code _file}) on the committed SAS-style
 * scorecard of tests/data/pmml: every row scores jpmml-evaluator's 'Final Score'
 * (scorecard_sas_scores.csv, written by benches/peers/pmml_peers.py); an undeclared cutoff and
 * hostile XML are format errors.
 */
class PmmlTest {
    static Path data(String name) {
        return TestData.root().resolve("tests/data/pmml").resolve(name);
    }

    @Test
    void aPmmlScorecardScoresEveryRowAsJpmmlEvaluator() throws Exception {
        String opts = "{\"accept\": \"at_or_above\", \"cutoff\": 560}";
        List<String> rows = Files.readAllLines(data("rows.csv"));
        List<String> want = Files.readAllLines(data("scorecard_sas_scores.csv"));
        assertEquals(401, rows.size());
        try (Schema schema = Schema.fromJson(Files.readString(data("schema.json")));
                Model a = Model.fromPmmlFile(schema, data("scorecard_sas.pmml").toString(), opts);
                Model b = Model.fromPmmlString(schema, Files.readString(data("scorecard_sas.pmml")), opts)) {
            assertEquals(Model.Kind.SCORECARD, a.kind());
            assertEquals(a.toJson(), b.toJson());
            for (int i = 1; i < rows.size(); i++) {
                String[] cells = rows.get(i).split(",");
                double[] raw = new double[cells.length];
                for (int k = 0; k < cells.length; k++) {
                    raw[k] = Double.parseDouble(cells[k]);
                }
                double expect = Double.parseDouble(want.get(i).split(",")[1]);
                Model.Prediction p = a.predictRaw(schema, raw);
                assertEquals(expect, p.score(), 0.0, "row " + i);
                assertEquals(expect >= 560, p.accepted(), "row " + i);
            }
            CfxException e = assertThrows(
                    CfxException.class, () -> Model.fromPmmlFile(schema, data("scorecard_sas.pmml").toString(), null));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("at_or_above"), e.getMessage());
            e = assertThrows(CfxException.class, () -> Model.fromPmmlString(schema, "<!DOCTYPE x><PMML/>", opts));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            e = assertThrows(CfxException.class, () -> Model.fromPmmlFile(schema, data("none.pmml").toString(), opts));
            assertEquals(Status.IO_ERROR, e.statusCode());
        }
    }
}
