package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ModelTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;

    @BeforeAll
    static void load() {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
    }

    @AfterAll
    static void free() {
        split.close();
        schema.close();
        german.close();
    }

    static double sigmoid(double z) {
        return 1.0 / (1.0 + Math.exp(-z));
    }

    @Test
    void linearModelFromArraysIsTheClosedForm() {
        double[] w = {0.5, -1.25, 2.0};
        try (Model m = Model.linear(w, -0.25, 0.6)) {
            assertEquals(Model.Kind.LINEAR, m.kind());
            assertEquals(3, m.inputDim());
            assertEquals(0.6, m.threshold());
            double[] x = {1.0, 0.5, 0.25};
            double z = 0.5 * 1.0 - 1.25 * 0.5 + 2.0 * 0.25 - 0.25;
            Model.Prediction p = m.predict(x);
            assertEquals(z, p.score(), 1e-15);
            assertEquals(sigmoid(z), p.probability(), 1e-15);
            assertEquals(sigmoid(z) > 0.6, p.accepted());
            assertFalse(p.accepted(), "sigmoid(0.125) = 0.53 is below 0.6");
            assertTrue(m.predict(new double[] {1, 0, 1}).accepted());
        }
    }

    @Test
    void predictRawEncodesThroughTheSchema() {
        try (Model m = Model.fitLinear(split.train(), 1.0)) {
            for (int i = 0; i < 50; i++) {
                double[] raw = german.row(i);
                assertEquals(m.predict(schema.encode(raw)), m.predictRaw(schema, raw));
            }
            try (Model small = Model.linear(new double[] {1.0}, 0.0, 0.5)) {
                CfxException e =
                        assertThrows(CfxException.class, () -> small.predictRaw(schema, german.row(0)));
                assertEquals(Status.DIMENSION_MISMATCH, e.statusCode());
            }
        }
    }

    @Test
    void batchProbabilitiesEqualOneByOne() {
        try (Model m = Model.fitLinear(split.train(), 0.5)) {
            double[] x = split.test().encodedRows();
            double[] p = m.probabilities(x);
            int d = m.inputDim();
            for (int i = 0; i < p.length; i++) {
                double[] row = java.util.Arrays.copyOfRange(x, i * d, (i + 1) * d);
                assertEquals(m.predict(row).probability(), p[i], 0.0);
            }
            double[] part = new double[10];
            m.probabilitiesInto(x, 20, 10, part, 0);
            assertArrayEquals(java.util.Arrays.copyOfRange(p, 20, 30), part, 0.0);
            double[] big = new double[20];
            m.probabilitiesInto(x, 20, 10, big, 7);
            assertArrayEquals(part, java.util.Arrays.copyOfRange(big, 7, 17), 0.0);
            assertEquals(0.0, big[6]);
            assertEquals(0.0, big[17]);
            assertThrows(IndexOutOfBoundsException.class, () -> m.probabilitiesInto(x, 0, 10, big, 11));
            assertThrows(IllegalArgumentException.class, () -> m.probabilities(new double[d + 1]));
            assertThrows(IndexOutOfBoundsException.class, () -> m.probabilitiesInto(x, 295, 10, new double[10], 0));
        }
    }

    @Test
    void linearJsonRoundTripPredictsTheSameBits() {
        try (Model m = Model.fitLinear(split.train(), 1.0);
                Model back = Model.fromJson(schema, m.toJson())) {
            assertEquals(m.toJson(), back.toJson());
            assertEquals(m.fingerprint(), back.fingerprint());
            double[] x = split.test().encodedRows();
            assertArrayEquals(m.probabilities(x), back.probabilities(x), 0.0);
        }
        try (Model three = Model.linear(new double[] {1, 2, 3}, 0, 0.5)) {
            String json = three.toJson();
            CfxException e = assertThrows(CfxException.class, () -> Model.fromJson(schema, json));
            assertEquals(Status.DIMENSION_MISMATCH, e.statusCode());
        }
        assertEquals(
                Status.FORMAT_ERROR,
                assertThrows(CfxException.class, () -> Model.fromJson(schema, "[]")).statusCode());
    }

    @Test
    void strongerRegularisationShrinksTheWeights() {
        try (Model loose = Model.fitLinear(split.train(), 10.0);
                Model tight = Model.fitLinear(split.train(), 0.01)) {
            double[] x = split.test().encodedRows();
            double[] pl = loose.probabilities(x);
            double[] pt = tight.probabilities(x);
            double spreadLoose = 0, spreadTight = 0;
            for (int i = 0; i < pl.length; i++) {
                spreadLoose += Math.abs(pl[i] - 0.5);
                spreadTight += Math.abs(pt[i] - 0.5);
            }
            assertTrue(spreadTight < spreadLoose, "C = 0.01 pulls probabilities to the base rate");
        }
        assertEquals(
                Status.INVALID_ARGUMENT,
                assertThrows(CfxException.class, () -> Model.fitLinear(split.train(), -1.0)).statusCode());
    }

    @Test
    void mlpTrainsDeterministicallyAndRoundTrips() {
        int[] hidden = {8};
        try (Model a = Model.trainMlp(split.train(), hidden, 30, 32, 0.01, 1e-4, 42);
                Model b = Model.trainMlp(split.train(), hidden, 30, 32, 0.01, 1e-4, 42);
                Model c = Model.trainMlp(split.train(), hidden, 30, 32, 0.01, 1e-4, 43)) {
            assertEquals(Model.Kind.MLP, a.kind());
            assertEquals(a.toJson(), b.toJson(), "same seed, same bits");
            assertNotEquals(a.toJson(), c.toJson());
            double[] x = split.test().encodedRows();
            double[] p = a.probabilities(x);
            double[] y = split.test().labels();
            int hits = 0;
            for (int i = 0; i < p.length; i++) {
                hits += ((p[i] > a.threshold()) == (y[i] > 0.5)) ? 1 : 0;
            }
            assertTrue(hits / (double) p.length > 0.65, "held-out accuracy " + hits / (double) p.length);
            try (Model back = Model.fromJson(schema, a.toJson())) {
                assertEquals(Model.Kind.MLP, back.kind());
                assertArrayEquals(p, back.probabilities(x), 0.0);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Model.trainMlp(split.train(), new int[] {-1}, 1, 1, 0.1, 0, 1));
        assertEquals(
                Status.INVALID_ARGUMENT,
                assertThrows(CfxException.class, () -> Model.trainMlp(split.train(), new int[] {0}, 1, 1, 0.1, 0, 1))
                        .statusCode());
    }
}
