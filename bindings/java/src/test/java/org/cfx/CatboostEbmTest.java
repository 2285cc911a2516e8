package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CatBoost and EBM importers ({@code cfx_model_from_catboost_json_str} / {@code _file},
 * {@code cfx_model_from_ebm_json_str} / {@code _file}) on the committed models of tests/data:
 * the first 150 rows (the data's own) score minus the producer's margin (CatBoost RawFormulaVal,
 * interpret's decision_function, written by benches/peers/catboost_ebm_peers.py; the models
 * predict default, read with favourable_class 0); a CTR model and a multiclass EBM are refused.
 */
class CatboostEbmTest {
    static final String OPTS =
            "{\"favourable_class\": 0, \"special_as_missing\": [\"debt\"], \"unseen_levels\": {\"home\": [\"council\"]}}";

    static Path data(String format, String name) {
        return TestData.root().resolve("tests/data").resolve(format).resolve(name);
    }

    static void checkRows(Schema schema, Model m, String format, String name) throws Exception {
        List<String> rows = Files.readAllLines(data(format, name + "_rows.csv"));
        List<String> want = Files.readAllLines(data(format, name + "_margins.csv"));
        for (int i = 1; i <= 150; i++) {
            String[] cells = rows.get(i).split(",");
            double[] raw = new double[cells.length];
            for (int k = 0; k < cells.length; k++) {
                raw[k] = Double.parseDouble(cells[k]);
            }
            double expect = -Double.parseDouble(want.get(i).split(",")[1]);
            assertEquals(expect, m.predictRaw(schema, raw).score(), 1e-9 * Math.max(1.0, Math.abs(expect)), "row " + i);
        }
    }

    @Test
    void catboostAndEbmModelsScoreAsTheirProducers() throws Exception {
        try (Schema schema = Schema.fromJson(Files.readString(data("catboost", "schema.json")));
                Model a = Model.fromCatboostFile(schema, data("catboost", "cb_onehot.json").toString(), OPTS);
                Model b = Model.fromCatboostJson(schema, Files.readString(data("catboost", "cb_onehot.json")), OPTS);
                Model c = Model.fromEbmFile(schema, data("ebm", "ebm_cat.json").toString(), OPTS);
                Model d = Model.fromEbmJson(schema, Files.readString(data("ebm", "ebm_cat.json")), OPTS)) {
            assertEquals(Model.Kind.TREES, a.kind());
            assertEquals(a.toJson(), b.toJson());
            assertEquals(c.toJson(), d.toJson());
            checkRows(schema, a, "catboost", "cb_onehot");
            checkRows(schema, c, "ebm", "ebm_cat");
            CfxException e = assertThrows(
                    CfxException.class, () -> Model.fromCatboostFile(schema, data("catboost", "cb_ctr.json").toString(), OPTS));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("one_hot_max_size"), e.getMessage());
            e = assertThrows(CfxException.class, () -> Model.fromEbmJson(schema, "{\"version\": \"1.0\"}", OPTS));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            e = assertThrows(CfxException.class, () -> Model.fromEbmFile(schema, data("ebm", "none.json").toString(), OPTS));
            assertEquals(Status.IO_ERROR, e.statusCode());
        }
    }
}
