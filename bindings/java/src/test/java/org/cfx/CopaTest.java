package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The COPA entry points (run when the header declares them; skipped otherwise). Oracle: examples/c/copa.expected. */
class CopaTest {
    static final double[] MEAN = {-1.0, 2.0, 1.0};
    static final double[][] COV = {{0.5, 0, 0}, {0, 0.2, 0}, {0, 0, 0.3}};
    static final double[][] PLAN = {{0.8, 0.5}, {0.3, 1.5}};

    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Uncertainty ensemble;

    @BeforeAll
    static void load() {
        if (!Copa.available()) {
            return; // every test is skipped by need()
        }
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        ensemble = Uncertainty.fromDataset(split.train(), 10, 1);
    }

    @BeforeEach
    void need() {
        assumeTrue(Copa.available(), "cfx.h has no COPA entry points yet");
    }

    @AfterAll
    static void free() {
        if (german != null) {
            ensemble.close();
            split.close();
            schema.close();
            german.close();
        }
    }

    @Test
    void oneOptionLowerBoundIsCantelli() {
        try (Uncertainty u = Uncertainty.fromMoments(MEAN, COV)) {
            assertEquals(3, u.dim());
            Copa.Bounds b = Copa.bounds(u, new double[][] {PLAN[0]}, 0.0);
            double mu = MEAN[0] + MEAN[1] * 0.8 + MEAN[2] * 0.5;
            double s2 = 0.5 + 0.2 * 0.8 * 0.8 + 0.3 * 0.5 * 0.5;
            assertEquals(mu * mu / (mu * mu + s2), b.lower(), 1e-5);
            assertEquals(0.6325, b.lower(), 5e-5);
            assertEquals(1.0, b.upper(), 0.0);
            assertEquals(CopaStatus.OPTIMAL, b.lowerStatus());
            assertEquals(CopaStatus.TRIVIAL_MEAN_INSIDE, b.upperStatus());
        }
    }

    @Test
    void twoOptionBoundsMatchTheCExample() {
        try (Uncertainty u = Uncertainty.fromMoments(MEAN, new double[] {0.5, 0, 0, 0, 0.2, 0, 0, 0, 0.3})) {
            Copa.Bounds b0 = Copa.bounds(u, PLAN, 0.0);
            assertEquals(0.3912, b0.lower(), 5e-5);
            assertEquals(1.0, b0.upper(), 5e-5);
            assertEquals(CopaStatus.OPTIMAL, b0.lowerStatus());
            assertEquals(CopaStatus.TRIVIAL_MEAN_INSIDE, b0.upperStatus());
            Copa.Bounds b1 = Copa.bounds(u, PLAN, 0.1);
            assertEquals(0.2806, b1.lower(), 5e-5);
            assertEquals(1.0, b1.upper(), 5e-5);
            assertEquals(CopaStatus.OPTIMAL, b1.lowerStatus());
            assertEquals(CopaStatus.TRIVIAL_MEAN_INSIDE, b1.upperStatus());
            assertTrue(b1.lowerStatus().usable());
        }
    }

    @Test
    void correctionRaisesTheLowerBoundAsInTheCExample() {
        assumeTrue(Copa.correctAvailable(), "cfx.h has no cfx_copa_correct yet");
        double[][] weak = {{0.2, 0.1}, {0.8, 0.5}};
        try (Uncertainty u = Uncertainty.fromMoments(MEAN, COV)) {
            Copa.Correction c = Copa.correct(u, weak, 0.0, 0.1);
            assertEquals(2, c.options().length);
            assertEquals(2, c.options()[0].length);
            assertEquals(2, c.options()[1].length);
            // copa.expected: "correction: 4 values, L* before 0.0000, raised: yes"
            assertEquals(0.0, c.lowerBefore(), 5e-5);
            assertTrue(c.lowerAfter() > c.lowerBefore(), c.toString());
            // The corrected plan's own bound is the reported L* after.
            assertEquals(c.lowerAfter(), Copa.bounds(u, c.options(), 0.0).lower(), 1e-9);
            // The first option is projected onto the Requirement half-space μ̂ᵀx̃ ≥ 0.1.
            double[] x = c.options()[0];
            assertTrue(MEAN[0] + MEAN[1] * x[0] + MEAN[2] * x[1] >= 0.1 - 1e-6, java.util.Arrays.toString(x));
            // Same inputs, same bits.
            Copa.Correction again = Copa.correct(u, weak, 0.0, 0.1);
            assertArrayEquals(c.options()[0], again.options()[0], 0.0);
            assertArrayEquals(c.options()[1], again.options()[1], 0.0);
            // Bad input: wrong width, negative or NaN delta, ragged rows.
            assertThrows(CfxException.class, () -> Copa.correct(u, new double[][] {{1, 2, 3}}, 0.0, 0.1));
            CfxException nan = assertThrows(CfxException.class, () -> Copa.correct(u, weak, 0.0, Double.NaN));
            assertEquals(Status.INVALID_ARGUMENT, nan.statusCode());
            assertThrows(CfxException.class, () -> Copa.correct(u, weak, -1.0, 0.1));
            assertThrows(IllegalArgumentException.class, () -> Copa.correct(u, new double[][] {{1, 2}, {1}}, 0.0, 0.1));
        }
    }

    @Test
    void germanPlanHasThreeCoherentOptions() {
        int nFeatures = schema.nFeatures();
        assertEquals(1 + schema.encodedDim(), ensemble.dim());
        double[] raw = split.test().row(0);
        try (Config cfg = Config.builder().nDiverse(3).seed(7).build();
                CopaResult r = Copa.plan(schema, ensemble, cfg, raw)) {
            assertEquals(3, r.nOptions());
            double[][] opts = r.options();
            assertEquals(3, opts.length);
            for (double[] o : opts) {
                assertEquals(nFeatures, o.length);
            }
            CfxException e = assertThrows(CfxException.class, () -> r.option(3));
            assertEquals(Status.NOT_FOUND, e.statusCode());
            assertThrows(IndexOutOfBoundsException.class, () -> r.option(-1));
            CopaResult.Metrics m = r.metrics();
            assertTrue(m.proximity() >= 0, m.toString());
            assertTrue(m.diversity() > 0, m.toString());
            assertTrue(0 <= m.lower() && m.lower() <= m.upper() && m.upper() <= 1, m.toString());
            String text = r.describe();
            assertEquals(3, text.chars().filter(ch -> ch == '\n').count(), text);
            assertTrue(text.startsWith("option 1:"), text);
            String json = r.toJson();
            assertTrue(json.contains("\"kind\": \"copa_plan\""), json);
            try (CopaResult again = Copa.plan(schema, ensemble, cfg, raw)) {
                assertEquals(json, again.toJson(), "same seed, same plan");
            }
        }
    }

    @Test
    void badInputBecomesCfxException() {
        // d < 2, wrong covariance size, non-finite values.
        CfxException small = assertThrows(CfxException.class, () -> Uncertainty.fromMoments(new double[] {1}, new double[][] {{1}}));
        assertFalse(small.getMessage().isEmpty());
        assertThrows(CfxException.class, () -> Uncertainty.fromMoments(MEAN, new double[] {1, 0, 0, 1}));
        assertThrows(CfxException.class,
                () -> Uncertainty.fromMoments(new double[] {Double.NaN, 1, 1}, COV));
        assertThrows(IllegalArgumentException.class, () -> Uncertainty.fromMoments(MEAN, new double[][] {{1, 0}, {0, 1}, {0, 0}}));
        assertThrows(CfxException.class, () -> Uncertainty.fromDataset(split.train(), 1, 0));
        try (Uncertainty u = Uncertainty.fromMoments(MEAN, COV)) {
            // options of the wrong width (3 instead of d − 1 = 2), negative radius
            assertThrows(CfxException.class, () -> Copa.bounds(u, new double[][] {{1, 2, 3}}, 0.0));
            assertThrows(CfxException.class, () -> Copa.bounds(u, PLAN, -1.0));
            assertThrows(IllegalArgumentException.class, () -> Copa.bounds(u, new double[][] {{1, 2}, {1}}, 0.0));
            // uncertainty of the wrong dimension for the German schema
            assertThrows(CfxException.class, () -> Copa.plan(schema, u, null, split.test().row(0)));
        }
        // raw row of the wrong length
        assertThrows(CfxException.class, () -> Copa.plan(schema, ensemble, null, new double[] {1, 2}));
    }

    @Test
    void handlesAreFreedExactlyOnce() {
        boolean was = Native.trackFrees;
        Native.trackFrees = true;
        try {
            Uncertainty u = Uncertainty.fromMoments(MEAN, COV);
            long uid = u.resourceId();
            CopaResult r;
            try (Config cfg = Config.builder().nDiverse(2).seed(3).build()) {
                r = Copa.plan(schema, ensemble, cfg, split.test().row(1));
            }
            long rid = r.resourceId();
            assertEquals(2, r.nOptions());
            u.close();
            u.close();
            r.close();
            r.close();
            assertTrue(u.isClosed() && r.isClosed());
            assertEquals(1, count(uid));
            assertEquals(1, count(rid));
            assertThrows(IllegalStateException.class, u::dim);
            assertThrows(IllegalStateException.class, r::metrics);
            assertThrows(IllegalStateException.class, () -> Copa.bounds(u, PLAN, 0.0));
        } finally {
            Native.trackFrees = was;
        }
    }

    private static int count(long id) {
        AtomicInteger n = Native.FREE_COUNTS.get(id);
        return n == null ? 0 : n.get();
    }
}
