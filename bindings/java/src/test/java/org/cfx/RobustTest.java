package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The robustness entry points (run when the header declares them; skipped otherwise). */
class RobustTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static double[] declinedRaw;

    @BeforeAll
    static void load() {
        if (!Robustness.available()) {
            return; // every test is skipped by need()
        }
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        for (int i = 0; declinedRaw == null; i++) {
            double[] r = split.test().row(i);
            if (!model.predictRaw(schema, r).accepted()) {
                declinedRaw = r;
            }
        }
    }

    @BeforeEach
    void need() {
        assumeTrue(Robustness.available(), "cfx.h has no robustness entry points yet");
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
    void monteCarloAgreesWithTheClosedFormAndProbe() {
        try (Noise noise = Noise.gaussian(schema, 0.01);
                Estimator est = Estimator.create(noise, 10000, Sampling.GENERIC);
                Workspace ws = Workspace.create(model, 42)) {
            double[] x = schema.encode(split.test().row(0));
            Estimator.Estimate e = est.estimate(model, ws, x);
            double exact = est.exactRate(model, x);
            assertTrue(e.gamma() >= 0 && e.gamma() <= 1 && e.gammaSe() >= 0, e.toString());
            assertTrue(Math.abs(e.gamma() - exact) <= 4 * e.gammaSe() + 1e-12, e + " vs exact " + exact);
            // For a linear model PROBE's first-order rate is the exact rate.
            assertEquals(exact, est.probeRate(model, ws, x), 1e-9);
            assertTrue(e.theta() >= 0 && e.theta() <= 1 && e.thetaSe() >= 0);
        }
    }

    @Test
    void sameSeedSameBitsAndBatchIndependentOfThreads() {
        try (Noise noise = Noise.gaussian(schema, 0.01);
                Estimator est = Estimator.create(noise, 2000, Sampling.GENERIC);
                Workspace ws = Workspace.create(model, 7)) {
            double[] x = schema.encode(declinedRaw);
            Estimator.Estimate a = est.estimate(model, ws, x);
            ws.reseed(7);
            assertEquals(a, est.estimate(model, ws, x));
            double[] pts = schema.encodeRows(new double[][] {split.test().row(0), split.test().row(1), declinedRaw});
            Estimator.Batch one = est.estimateBatch(model, pts, 11, 1);
            Estimator.Batch two = est.estimateBatch(model, pts, 11, 2);
            assertArrayEquals(one.gamma(), two.gamma(), 0.0);
            assertArrayEquals(one.theta(), two.theta(), 0.0);
            assertEquals(3, one.gamma().length);
        }
    }

    @Test
    void boundConfidenceIsHoeffding() {
        assertEquals(1 - Math.exp(-2 * 1000 * 0.05 * 0.05), Robustness.boundConfidence(1000, 0.05), 1e-15);
        assertTrue(Double.isNaN(Robustness.boundConfidence(1000, 0.0)));
        try (Noise noise = Noise.gaussian(schema, 0.01);
                Estimator est = Estimator.create(noise, 1000, Sampling.AUTO);
                Workspace ws = Workspace.create(model, 1)) {
            Estimator.Bound b = est.bound(model, ws, schema.encode(declinedRaw), 0.05);
            assertEquals(Robustness.boundConfidence(1000, 0.05), b.confidence(), 1e-12);
            assertTrue(b.bound() >= b.theta(), b.toString());
            assertEquals(
                    Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> est.bound(model, ws, schema.encode(declinedRaw), -1))
                            .statusCode());
        }
    }

    @Test
    void crocoCounterfactualIsCoherentAndExportsJson() {
        try (Noise noise = Noise.gaussian(schema, 0.01);
                Config cfg = Config.builder().seed(7).build();
                RobustResult r = Robustness.generate(schema, model, noise, RobustMethod.CROCO, cfg, declinedRaw)) {
            RobustResult.Summary s = r.summary();
            double[] raw = r.raw(schema);
            assertArrayEquals(raw, schema.decode(r.encoded(schema)), 1e-9);
            assertEquals(s.valid(), model.predictRaw(schema, raw).accepted());
            assertEquals(model.predict(r.encoded(schema)).probability(), s.probability(), 1e-12);
            assertTrue(s.gamma() >= 0 && s.gamma() <= 1 && s.confidence() > 0 && s.distance() >= 0, s.toString());
            String json = r.toJson(schema, model);
            assertTrue(json.contains(schema.fingerprint()), json);
            assertTrue(json.contains(model.fingerprint()), json);
            assertFalse(schema.describeChanges(declinedRaw, raw).isEmpty());
            try (RobustResult again = Robustness.generate(schema, model, noise, RobustMethod.CROCO, cfg, declinedRaw)) {
                assertEquals(json, again.toJson(schema, model), "same seed, same result");
            }
        }
    }

    @Test
    void misuseIsRefused() {
        try (Noise uniform = Noise.onColumns(NoiseModel.UNIFORM, new int[] {0, 1}, new double[] {0.1, 0.1});
                Estimator est = Estimator.create(uniform, 100, Sampling.GENERIC)) {
            CfxException e = assertThrows(CfxException.class, () -> est.exactRate(model, schema.encode(declinedRaw)));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        }
        assertThrows(CfxException.class, () -> Noise.onColumns(NoiseModel.GAUSSIAN, new int[] {1, 0}, new double[] {1, 1}));
        try (Noise noise = Noise.gaussian(schema, 0.01)) {
            assertThrows(CfxException.class, () -> Estimator.create(noise, 1, Sampling.AUTO));
        }
    }
}
