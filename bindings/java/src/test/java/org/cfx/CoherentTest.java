package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The coherent (MIP) entry points (run when the header declares them; skipped otherwise). */
class CoherentTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static double[] declinedRaw;

    @BeforeAll
    static void load() {
        if (!Coherent.available()) {
            return; // every test is skipped by need()
        }
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        // first declined held-out applicant (index 2 in the shared scenario)
        declinedRaw = split.test().row(2);
        assertFalse(model.predictRaw(schema, declinedRaw).accepted());
    }

    @BeforeEach
    void need() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points yet");
    }

    @AfterAll
    static void free() {
        if (german != null) {
            model.close();
            split.close();
            schema.close();
            german.close();
        }
    }

    /**
     * The exact engine on a ReLU network with LP bound tightening (default) and with the interval
     * bounds alone (the textbook big-M program): both exact, so each is the other's oracle.
     */
    @Test
    void mlpBoundTighteningOffProvesTheSameOptimum() {
        try (Model mlp = Model.trainMlp(split.train(), new int[] {8}, 30, 32, 0.01, 1e-4, 42);
                Config tight = Config.builder().timeLimit(60).build();
                Config plain = Config.builder().timeLimit(60).mlpBoundTightening(false).build()) {
            int checked = 0;
            for (int i = 0; i < split.test().nRows() && checked < 2; i++) {
                double[] a = split.test().row(i);
                if (mlp.predictRaw(schema, a).accepted()) {
                    continue;
                }
                try (CoherentResult r1 = Coherent.explain(schema, mlp, tight, a);
                        CoherentResult r2 = Coherent.explain(schema, mlp, plain, a)) {
                    assertEquals(CoherentResult.Outcome.OPTIMAL, r1.outcome());
                    assertEquals(CoherentResult.Outcome.OPTIMAL, r2.outcome());
                    double c1 = r1.certificate(0).cost(), c2 = r2.certificate(0).cost();
                    assertEquals(c1, c2, 1e-9 * Math.max(1.0, Math.abs(c1)));
                    assertTrue(mlp.predictRaw(schema, r2.counterfactual(0)).accepted());
                }
                checked++;
            }
            assertTrue(checked > 0, "a declined applicant");
        }
    }

    @Test
    void optimalCounterfactualIsAcceptedAndCertified() throws Exception {
        try (CoherentResult r = Coherent.explain(schema, model, null, declinedRaw)) {
            assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
            assertEquals(0, r.blockingMask());
            assertEquals(1, r.count());
            double[] cf = r.counterfactual(0);
            assertEquals(schema.nFeatures(), cf.length);
            Model.Prediction p = model.predictRaw(schema, cf);
            assertTrue(p.accepted(), "the counterfactual is accepted");
            CoherentResult.Certificate c = r.certificate(0);
            assertEquals(p.probability(), c.probability(), 1e-9);
            assertEquals(p.score(), c.score(), 1e-9);
            assertTrue(c.cost() > 0 && c.mipGap() >= 0 && c.solveSeconds() >= 0, c.toString());
            // immutable features never move
            int ps = schema.indexOf("personal_status_and_sex");
            int fw = schema.indexOf("foreign_worker");
            assertEquals(declinedRaw[ps], cf[ps]);
            assertEquals(declinedRaw[fw], cf[fw]);
            String text = r.describe();
            assertTrue(text.startsWith("declined: probability "), text);
            assertTrue(text.lines().anyMatch(l -> l.startsWith("optimal (cost ")), text);
            String json = r.toJson();
            assertTrue(json.contains("\"kind\": \"coherent\""), json);
            // the export names the same inputs as the Rust scenario's fingerprints
            java.util.Map<String, String> exp = TestData.expected();
            assertTrue(json.contains(exp.get("schema_fingerprint")), json);
            assertTrue(json.contains(exp.get("model_fingerprint")), json);
            try (CoherentResult again = Coherent.explain(schema, model, null, declinedRaw)) {
                assertEquals(json, again.toJson(), "same inputs, same bytes");
            }
            assertEquals(Status.NOT_FOUND, assertThrows(CfxException.class, () -> r.counterfactual(1)).statusCode());
        }
    }

    @Test
    void diverseSetStartsWithTheOptimum() {
        try (Config cfg = Config.builder().nDiverse(3).build();
                CoherentResult best = Coherent.explain(schema, model, null, declinedRaw);
                CoherentResult set = Coherent.explainDiverse(schema, model, cfg, declinedRaw)) {
            assertTrue(set.count() >= 1 && set.count() <= 3, "count " + set.count());
            assertArrayEquals(best.counterfactual(0), set.counterfactual(0));
            for (int k = 0; k < set.count(); k++) {
                assertTrue(model.predictRaw(schema, set.counterfactual(k)).accepted());
                assertTrue(set.certificate(k).cost() >= best.certificate(0).cost() - 1e-9);
            }
            assertEquals(set.count(), set.describe().lines().filter(l -> l.startsWith("optimal") || l.startsWith("alternative")).count());
        }
    }

    @Test
    void acceptedApplicantIsRefused() {
        double[] accepted = split.test().row(1);
        assertTrue(model.predictRaw(schema, accepted).accepted());
        CfxException e = assertThrows(CfxException.class, () -> Coherent.explain(schema, model, null, accepted));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
    }

    @Test
    void fourThreadsSharingTheHandlesGetTheSameAnswer() throws Exception {
        String expected;
        try (CoherentResult r = Coherent.explain(schema, model, null, declinedRaw)) {
            expected = r.toJson();
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<String>> fs = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                fs.add(pool.submit(() -> {
                    try (CoherentResult r = Coherent.explain(schema, model, null, declinedRaw)) {
                        return r.toJson();
                    }
                }));
            }
            for (java.util.concurrent.Future<String> f : fs) {
                assertEquals(expected, f.get());
            }
        } finally {
            pool.shutdown();
        }
    }
}
