package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bank's own gradient-boosted models, as trained by the libraries themselves: the 100-tree
 * XGBoost (depth 4) and LightGBM (15 leaves) HELOC ensembles that {@code benches/peers/trees_train.py}
 * writes to {@code target/peers} (make test runs it first), with each library's raw margin of every
 * HELOC row. Through the file importers of the C ABI, every row scores the library's own margin
 * (1e-6, the bound of cfx's Rust parity test), and the first declined held-out applicant gets a
 * proven-optimal, coherent counterfactual that the model accepts.
 */
class HelocTreesTest {
    /** A file the peer script wrote; missing: skipped with a notice, except under CI (a failure). */
    static Path peer(String name) {
        Path p = TestData.root().resolve("target/peers").resolve(name);
        if (!Files.exists(p)) {
            if (TestData.inCi()) {
                throw new AssertionError(p + " is missing under CI (make test runs benches/peers/trees_train.py)");
            }
            System.err.println("notice: " + p + " not found; skipping (run benches/peers/trees_train.py)");
            org.junit.jupiter.api.Assumptions.abort("peer model missing: " + p);
        }
        return p;
    }

    /** The library's margins, one per HELOC row, from the peer's {@code row,margin} CSV. */
    static double[] margins(Path csv) throws Exception {
        List<String> lines = Files.readAllLines(csv);
        assertEquals("row,margin", lines.get(0));
        double[] out = new double[lines.size() - 1];
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",");
            assertEquals(i - 1, Integer.parseInt(f[0]), "rows in order");
            out[i - 1] = Double.parseDouble(f[1]);
        }
        return out;
    }

    @Test
    void bothLibrariesMarginsOnEveryHelocRow() throws Exception {
        Path data = TestData.shared("heloc.csv");
        try (Dataset heloc = Dataset.loadHeloc(data.toString());
                Schema schema = heloc.schema();
                Model xgb = Model.fromXgboostFile(schema, peer("heloc_xgb.json").toString(), null);
                Model lgb = Model.fromLightgbmFile(schema, peer("heloc_lgbm.txt").toString(), null)) {
            double[] xgbMargins = margins(peer("heloc_xgb_margins.csv"));
            double[] lgbMargins = margins(peer("heloc_lgbm_margins.csv"));
            assertEquals(10459, heloc.nRows());
            assertEquals(heloc.nRows(), xgbMargins.length);
            assertEquals(heloc.nRows(), lgbMargins.length);
            assertEquals(Model.Kind.TREES, xgb.kind());
            assertEquals(Model.Kind.TREES, lgb.kind());
            double worstXgb = 0, worstLgb = 0;
            for (int i = 0; i < heloc.nRows(); i++) {
                double[] raw = heloc.row(i);
                Model.Prediction px = xgb.predictRaw(schema, raw);
                Model.Prediction pl = lgb.predictRaw(schema, raw);
                worstXgb = Math.max(worstXgb, Math.abs(px.score() - xgbMargins[i]));
                worstLgb = Math.max(worstLgb, Math.abs(pl.score() - lgbMargins[i]));
                assertEquals(px.score() > 0, px.accepted(), "row " + i);
            }
            assertTrue(worstXgb <= 1e-6, "worst XGBoost margin difference " + worstXgb);
            assertTrue(worstLgb <= 1e-6, "worst LightGBM margin difference " + worstLgb);
        }
    }

    @Test
    void theFirstDeclinedHeldOutApplicantGetsAProvenOptimalAcceptedCounterfactual() throws Exception {
        Path data = TestData.shared("heloc.csv");
        try (Dataset heloc = Dataset.loadHeloc(data.toString());
                Dataset.Split split = heloc.holdoutSplit();
                Schema schema = split.train().fittedSchema();
                Model xgb = Model.fromXgboostFile(schema, peer("heloc_xgb.json").toString(), null);
                // A generous limit: a slow machine must not turn into a failed test.
                Config config = Config.builder().timeLimit(120).build()) {
            Dataset test = split.test();
            int declined = -1;
            for (int i = 0; i < test.nRows() && declined < 0; i++) {
                if (!xgb.predictRaw(schema, test.row(i)).accepted()) {
                    declined = i;
                }
            }
            assertTrue(declined >= 0, "a declined held-out applicant");
            double[] raw = test.row(declined);
            try (CoherentResult r = Coherent.explain(schema, xgb, config, raw)) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome(), r.describe());
                double[] cf = r.counterfactual(0);
                assertFalse(Arrays.equals(raw, cf), "the counterfactual changes something");
                assertArrayEquals(cf, schema.decode(schema.encode(cf)), "coherent");
                Model.Prediction p = xgb.predictRaw(schema, cf);
                assertTrue(p.accepted(), "accepted by the model");
                CoherentResult.Certificate c = r.certificate(0);
                assertEquals(p.score(), c.score(), 1e-9, "the certificate's score is the model's");
                assertTrue(c.cost() > 0 && Double.isFinite(c.cost()), "cost " + c.cost());
                // The exact tree search proves it; HiGHS, on the same program, agrees.
                assertEquals(ProvedBy.TREE_SEARCH, r.provedBy());
                try (Config mip = Config.builder().timeLimit(120).solver(Solver.MIP).build();
                        CoherentResult h = Coherent.explain(schema, xgb, mip, raw)) {
                    assertEquals(ProvedBy.HIGHS, h.provedBy());
                    assertEquals(CoherentResult.Outcome.OPTIMAL, h.outcome(), h.describe());
                    assertEquals(c.cost(), h.certificate(0).cost(), 1e-9 * c.cost(), "same optimum");
                }
            }
        }
    }
}
