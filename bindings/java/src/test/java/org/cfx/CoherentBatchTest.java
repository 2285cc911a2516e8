package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** cfx_coherent_explain_batch (run when the header declares it; skipped otherwise). Oracle: the one-applicant call. */
class CoherentBatchTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static double[][] rows;
    static int accepted = -1;

    @BeforeAll
    static void load() {
        if (!Coherent.batchAvailable()) {
            return; // every test is skipped by need()
        }
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        // the first three declined held-out applicants and the first accepted one, in test order
        java.util.List<double[]> list = new java.util.ArrayList<>();
        int declined = 0;
        for (int i = 0; declined < 3 || accepted < 0; i++) {
            double[] raw = split.test().row(i);
            if (model.predictRaw(schema, raw).accepted()) {
                if (accepted < 0) {
                    accepted = list.size();
                    list.add(raw);
                }
            } else if (declined < 3) {
                declined++;
                list.add(raw);
            }
        }
        rows = list.toArray(new double[0][]);
    }

    @BeforeEach
    void need() {
        assumeTrue(Coherent.batchAvailable(), "cfx.h has no cfx_coherent_explain_batch yet");
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

    @Test
    void everyApplicantEqualsTheOneApplicantCall() {
        for (int threads : new int[] {1, 2}) {
            try (Config cfg = Config.builder().threads(threads).build();
                    CoherentBatch b = Coherent.explainBatch(schema, model, cfg, rows)) {
                assertEquals(4, b.count());
                for (int i = 0; i < 4; i++) {
                    if (i == accepted) {
                        assertEquals(Status.INVALID_ARGUMENT, b.status(i));
                        assertTrue(b.error(i).contains("already accepted"), b.error(i));
                        final int k = i;
                        CfxException e = assertThrows(CfxException.class, () -> b.result(k));
                        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
                        continue;
                    }
                    assertEquals(Status.OK, b.status(i));
                    assertEquals("", b.error(i));
                    try (CoherentResult r = b.result(i);
                            CoherentResult one = Coherent.explain(schema, model, null, rows[i])) {
                        assertEquals(one.outcome(), r.outcome());
                        assertEquals(one.count(), r.count());
                        assertArrayEquals(one.counterfactual(0), r.counterfactual(0), 0.0);
                        assertEquals(one.certificate(0).cost(), r.certificate(0).cost(), 0.0);
                        assertEquals(one.toJson(), r.toJson());
                    }
                }
                CfxException e = assertThrows(CfxException.class, () -> b.status(4));
                assertEquals(Status.NOT_FOUND, e.statusCode());
                String json = b.toJson();
                assertTrue(json.contains("\"kind\": \"coherent_batch\""), json);
                assertTrue(json.contains("CFX_STATUS_INVALID_ARGUMENT"), json);
            }
        }
    }

    @Test
    void resultsOutliveTheBatchAndBadInputIsRefused() {
        CoherentResult r;
        try (CoherentBatch b = Coherent.explainBatch(schema, model, null, new double[][] {rows[accepted == 0 ? 1 : 0]})) {
            r = b.result(0);
        }
        assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
        r.close();
        try (CoherentBatch empty = Coherent.explainBatch(schema, model, null, new double[0][])) {
            assertEquals(0, empty.count());
        }
        double[] nan = rows[0].clone();
        nan[0] = Double.NaN;
        CfxException e = assertThrows(CfxException.class,
                () -> Coherent.explainBatch(schema, model, null, new double[][] {nan}));
        assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        assertThrows(IllegalArgumentException.class,
                () -> Coherent.explainBatch(schema, model, null, new double[][] {{1, 2}}));
        assertThrows(NullPointerException.class, () -> Coherent.explainBatch(schema, model, null, null));
    }
}
